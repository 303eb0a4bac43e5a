"""Small exports in the real formats of ChatGPT and Claude, written by the tests themselves.

ChatGPT: conversations.json is a list; each conversation has a ``mapping`` of nodes (id, message,
parent, children) forming a tree whose root is an empty node, a hidden system message first, and
``current_node`` the leaf the person last saw. Claude: a list with ``uuid``, ``name``,
``created_at`` and ``chat_messages``.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

START = 1_700_000_000.0       # 2023-11-14T22:13:20Z


def _node(node_id, parent, role, parts, at, content_type="text", **extra):
    message = {"id": node_id, "author": {"role": role, "name": None, "metadata": {}}, "create_time": at,
               "update_time": None, "content": {"content_type": content_type, "parts": parts}, "status":
               "finished_successfully", "end_turn": True, "weight": 1.0, "metadata": extra.pop("metadata", {}),
               "recipient": extra.pop("recipient", "all")}
    return {"id": node_id, "message": message, "parent": parent, "children": []}


def chatgpt_conversation(ident: str, title: str, turns: list[tuple[str, str]], start: float = START,
                         abandoned_branch: bool = False) -> dict:
    """A conversation as ChatGPT exports it: root, hidden system message, then the turns. With
    ``abandoned_branch`` the first reply was regenerated: the old reply stays in the tree, off the
    current branch."""
    mapping = {"root": {"id": "root", "message": None, "parent": None, "children": []}}
    system = _node(f"{ident}-sys", "root", "system", [""], None,
                   metadata={"is_visually_hidden_from_conversation": True})
    mapping[system["id"]] = system
    mapping["root"]["children"].append(system["id"])
    parent = system["id"]
    for n, (role, text) in enumerate(turns):
        node = _node(f"{ident}-{n}", parent, role, [text], start + 60 * n)
        mapping[node["id"]] = node
        mapping[parent]["children"].append(node["id"])
        if abandoned_branch and n == 1:
            old = _node(f"{ident}-old", parent, role, ["AN ABANDONED REPLY"], start + 30)
            mapping[old["id"]] = old
            mapping[parent]["children"].insert(0, old["id"])
        parent = node["id"]
    return {"title": title, "create_time": start, "update_time": start + 600, "mapping": mapping,
            "moderation_results": [], "current_node": parent, "plugin_ids": None, "conversation_id": ident,
            "id": ident, "default_model_slug": "gpt-4o"}


def with_tool_and_image(conversation: dict) -> dict:
    """Add, on the current branch, a tool call, its result, an image-only message and a message
    with text beside an image, as a browsing or image conversation has them."""
    mapping, parent = conversation["mapping"], conversation["current_node"]
    extra = [_node("call", parent, "assistant", ["search('weather')"], START + 1000, "code", recipient="browser"),
             _node("result", "call", "tool", ["Sunny, 21 C"], START + 1001, "tether_browsing_display"),
             _node("picture", "result", "user", [{"content_type": "image_asset_pointer", "asset_pointer":
                                                  "file-service://file-1", "width": 10, "height": 10}],
                   START + 1002, "multimodal_text"),
             _node("caption", "picture", "user", [{"content_type": "image_asset_pointer", "asset_pointer":
                                                   "file-service://file-2"}, "What bird is this?"],
                   START + 1003, "multimodal_text")]
    for node in extra:
        mapping[node["id"]] = node
        mapping[node["parent"]]["children"].append(node["id"])
    conversation["current_node"] = "caption"
    return conversation


def three_conversations() -> list[dict]:
    return [
        chatgpt_conversation("c-peanut", "Snack ideas", [
            ("user", "I am allergic to peanuts, what snacks can I take on a hike?"),
            ("assistant", "Try dried apricots, rice cakes and sunflower seeds.")], abandoned_branch=True),
        chatgpt_conversation("c-bike", "Bike repair", [
            ("user", "My bicycle chain keeps slipping on the rear sprocket."),
            ("assistant", "A worn chain or cassette usually causes that; measure the chain stretch.")],
            start=START + 86400),
        with_tool_and_image(chatgpt_conversation("c-birds", "Birdwatching", [
            ("user", "Where can I watch kingfishers near Lyon?"),
            ("assistant", "The Miribel-Jonage park along the Rhône is a good place.")], start=START + 2 * 86400)),
    ]


def write_chatgpt_zip(path: Path, conversations: list[dict]) -> Path:
    """The .zip ChatGPT e-mails: conversations.json beside chat.html and user.json."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("conversations.json", json.dumps(conversations))
        archive.writestr("chat.html", "<html></html>")
        archive.writestr("user.json", json.dumps({"id": "user-1", "email": "a@example.com"}))
    return path


CLAUDE_ROOT = "00000000-0000-4000-8000-000000000000"     # the parent Claude names for a first message


def claude_conversation(uuid: str, name: str, messages: list[tuple[str, str]],
                        created: str = "2024-03-05T10:11:12.345678Z") -> dict:
    """Each message the reply to the one before (``parent_message_uuid``), the last one the
    conversation's ``current_leaf_message_uuid``, as Claude exports them."""
    chat = []
    for n, (sender, text) in enumerate(messages):
        at = f"2024-03-05T10:{12 + n:02d}:00.000000Z"
        chat.append({"uuid": f"{uuid}-{n}", "text": text, "sender": sender, "created_at": at, "updated_at": at,
                     "attachments": [], "files": [],
                     "content": [{"type": "text", "text": text, "start_timestamp": at, "stop_timestamp": at,
                                  "citations": []}],
                     "parent_message_uuid": chat[-1]["uuid"] if chat else CLAUDE_ROOT})
    return {"uuid": uuid, "name": name, "created_at": created, "updated_at": created,
            "account": {"uuid": "acc-1"}, "chat_messages": chat,
            "current_leaf_message_uuid": chat[-1]["uuid"] if chat else None}
