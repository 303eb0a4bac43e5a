"""Conversation: the turn engine and what a turn is made of: sessions and their messages, turn
records, context providers under a token budget (window, recall, summary, preferences), prompts,
tools, and the background jobs the outbox runs after a reply (archive, summarise, distil).

Above memory (it stores and recalls through the memory store) and models (it talks to the chat
model); below the app facade and the session files."""
