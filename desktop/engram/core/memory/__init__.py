"""Memory: the record and its vocabulary, scopes, and the store that adds, changes, forgets and
finds memories (search/). Above storage and models; knows nothing of turns or sessions' chats."""
