"""The bones of a pi-ai file read by the fast path, straight from its raw bytes (no dict per message).

A provider verdict judges the skeleton of the request (integrity.formats.skeleton), which needs each
message's bones only: role, part kinds, call ids and names, result id, whether an assistant turn stopped
abnormally.  Decoding every message into a dict to get them was most of `check --provider`'s memory on a
large file (11-16x the file).  Here msgspec decodes a chunk of messages at a time into structs holding
those fields alone, and each becomes a bones tuple: the same tuple `formats.skeleton.bones_of` makes of
the message as a dict (tests/test_skeleton.py holds the two equal).

The fast path already proved each message pi-ai (roles, part types, string ids and names, string texts;
see fast_read), so what is left to learn here is what the writers read: a message's own native hints
(`_native`: `hinted` gets their format, as bones_of does), whether an image has its data, and whether a user or
assistant text is blank (Anthropic refuses it, and bones carry no text: `hinted` gets skeleton.BLANK_TEXT, as
bones_of gives it).  A read for hints alone (struct_hints) leaves names to the fast reader, which marks them
from its light view (repair.views.holds_refused_name).
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator
from itertools import chain, compress, repeat
from operator import attrgetter, is_, is_not, not_
from typing import Any

import msgspec

from ..formats.skeleton import (
    BLANK_TEXT,
    ERROR_CONTENT,
    IMAGE,
    MISSING,
    STRING,
    TOOL_NAME,
    Bone,
    hint_format,
    responses_items,
)
from ..repair.views import frame_is_interrupted, name_refused

_UNSET = msgspec.UNSET
_HINT = msgspec.field(name="_native", default=_UNSET)
CHUNK = 8192
"""Messages decoded at once: large enough that msgspec's per-call cost vanishes, small enough to stay cheap."""


class _Call(msgspec.Struct, tag_field="type", tag="toolCall", gc=False):
    id: Any = _UNSET
    name: Any = _UNSET


class _Text(msgspec.Struct, tag_field="type", tag="text", gc=False):
    text: str = ""  # only whether it is blank (Anthropic refuses it; a skeleton cannot say it)


class _Thinking(msgspec.Struct, tag_field="type", tag="thinking", gc=False):
    pass


class _Image(msgspec.Struct, tag_field="type", tag="image", gc=False):
    data: msgspec.Raw | msgspec.UnsetType = _UNSET  # only whether it is there: writable drops an image without


class _Said(msgspec.Struct, tag_field="role", gc=False):
    """What a user or system turn holds (the two differ only in their tag)."""

    content: str | list[_Text | _Image]
    hint: Any = _HINT


class _User(_Said, tag="user"):
    pass


class _System(_Said, tag="system"):
    pass


class _Assistant(msgspec.Struct, tag_field="role", tag="assistant", gc=False):
    content: list[_Call | _Text | _Thinking | _Image]
    stopReason: Any = None
    errorMessage: Any = None
    hint: Any = _HINT


class _Kind(msgspec.Struct, gc=False):
    """A result's part: its type (an error result's parts are read for one that is not text), and whether an
    image has its data (an image a writer sends: image_sent)."""

    type: str = ""
    data: msgspec.Raw | msgspec.UnsetType = _UNSET


class _Result(msgspec.Struct, tag_field="role", tag="toolResult", gc=False):
    toolCallId: Any = _UNSET
    isError: Any = _UNSET
    content: list[_Kind] = []
    hint: Any = _HINT


_DECODE = msgspec.json.Decoder(list[_User | _System | _Assistant | _Result]).decode
Structs = tuple[type, type, type, type, type, dict[type, str]]
"""The struct classes a reader decodes messages into: result, assistant, user, call part, image part, and
the other parts' kinds by class."""

_STRUCTS: Structs = (_Result, _Assistant, _User, _Call, _Image, {_Text: "text", _Thinking: "thinking"})


def _parts(content: Any, kinds: dict[Any, Any], structs: Structs, hinted: set[str]) -> Any:
    """The parts' bones; kinds: the tuples of part kinds without a call seen so far, one tuple for all alike
    (most messages of a transcript are one of a few: a million of them then hold a few dozen tuples).  hinted
    gets formats.skeleton.TOOL_NAME for a call whose name a provider may refuse, as bones_of gives it
    (repair.views.name_refused)."""
    if type(content) is str:
        return STRING
    _, _, _, call, image, named = structs
    found: list[Any] = []
    plain = True
    for part in content:
        kind = type(part)
        if kind is call:
            name = part.name
            found.append((part.id, name))
            plain = False
            if name not in _LEGAL_NAMES:
                if name_refused(name):
                    hinted.add(TOOL_NAME)
                elif len(_LEGAL_NAMES) < 4096:
                    _LEGAL_NAMES.add(name)
        elif kind is image:
            if part.data is not _UNSET:
                found.append("image")
        else:
            found.append(named[kind])
    parts = tuple(found)
    return kinds.setdefault(parts, parts) if plain else parts


_LEGAL_NAMES: set[str] = set()
"""Tool names seen and taken by every provider (repair.views.name_refused), up to a few thousand: a transcript calls
a few tools many times."""

_TAGS: dict[Any, Any] = {}
"""The tag of each struct class blank_or_empty met (a message's role, a part's type)."""
_CONTENT = attrgetter("content")
_TEXT_OF = attrgetter("text")
_DATA_OF = attrgetter("data")


def _of_tags(classes: set[Any], tags: tuple[str, ...]) -> set[Any]:
    """Those struct classes whose tag is one of these (a message's role, a part's type)."""
    return {kind for kind in classes if _tag_of(kind) in tags}


def _tag_of(kind: Any) -> Any:
    """A struct class's tag, read once (_TAGS)."""
    tag = _TAGS.get(kind)
    if tag is None:
        tag = _TAGS[kind] = kind.__struct_config__.tag
    return tag


def _blank_in(texts: list[str]) -> bool:
    """Whether one of these texts is blank: repair.views.blank_text (not text or text.isspace()) read over them
    all by C-level passes, without a call of it per text."""
    return not all(texts) or any(map(str.isspace, texts))


def blank_or_empty(messages: list[Any], empty: bool) -> bool:
    """Whether a user or assistant message among these structs holds a blank text (a string content, or a text
    part: repair.views.blank_text), or (empty) is written with no block at all (no part but an image without
    its data) and is no interrupted frame without parts (the light view's empty_frames, which the sparse
    judgment reads: skeleton_verdicts): what Anthropic's empty-content rules read, and what neither a skeleton
    (no text) nor the light view (no parts) shows.  Read by each struct's tag (its role, its part's type), so
    that this module's structs and the fast reader's are read alike, in C-level passes over the chunk: a step
    per message in Python cost some 12% of `check --provider anthropic` at 200,000 messages."""
    said = _of_tags(set(map(type, messages)), ("user", "assistant"))
    if not said:
        return False
    picked = list(compress(messages, map(said.__contains__, map(type, messages))))
    contents = list(map(_CONTENT, picked))
    is_list = list(map(is_, map(type, contents), repeat(list)))
    strings = list(compress(contents, map(not_, is_list)))
    if strings and _blank_in(strings):
        return True
    lists = list(compress(contents, is_list)) if len(strings) < len(contents) else []
    parts = list(chain.from_iterable(lists))
    classes = set(map(type, parts))
    texts = _of_tags(classes, ("text",))
    if texts and _blank_in(list(map(_TEXT_OF, compress(parts, map(texts.__contains__, map(type, parts)))))):
        return True
    if not empty:
        return False
    images = _of_tags(classes, ("image",))
    if images and _UNSET in map(_DATA_OF, compress(parts, map(images.__contains__, map(type, parts)))):
        return any(map(_written_empty, compress(picked, is_list), repeat(images)))  # (an image without its data)
    # else a message is written with no block only when its list is empty
    return not all(lists) and any(map(_written_empty, compress(compress(picked, is_list), map(not_, lists)),
                                      repeat(images)))


_IS_ERROR = attrgetter("isError")


def error_content(messages: list[Any], result: type) -> bool:
    """Whether an error result among these structs (of class `result`) has no part, or a part that is not text
    (formats.skeleton.error_content_refused, which Anthropic refuses and a skeleton cannot show).  Results are
    picked and their flags read by C-level passes; only the error results' parts are looked at."""
    picked = list(compress(messages, map(is_, map(type, messages), repeat(result))))
    if not picked:
        return False
    flags = list(map(_IS_ERROR, picked))
    if True not in flags:
        return False
    for message in compress(picked, map(is_, flags, repeat(True))):
        content = message.content
        if not content or any(_part_tag(part) != "text" for part in content):
            return True
    return False


def image_sent(messages: list[Any], structs: Structs) -> bool:
    """Whether a user, system or result struct among these holds an image with its data (repair.views.holds_image:
    an image a writer sends, which a skeleton does not write: formats.skeleton.IMAGE).  The parts are picked and
    their classes read by C-level passes; only the images are looked at."""
    assistant, image = structs[1], structs[4]  # (classes: their parts are read by attribute)
    picked = list(map(_CONTENT, compress(messages, map(is_not, map(type, messages), repeat(assistant)))))
    parts = list(chain.from_iterable(compress(picked, map(is_, map(type, picked), repeat(list)))))
    classes = set(map(type, parts))
    if image not in classes and _Kind not in classes:
        return False
    data: Any = attrgetter("data")
    return any(data(part) is not _UNSET for part in parts
               if type(part) is image or (type(part) is _Kind and part.type == "image"))


def _part_tag(part: Any) -> Any:
    """A result part's type: _Kind's field, or the tag of a fast reader's part struct."""
    return part.type if type(part) is _Kind else _tag_of(type(part))


def _written_empty(message: Any, images: set[type]) -> bool:
    """Whether a user or assistant struct is written with no block (no part but images without their data) and
    is no interrupted frame without parts (the light view's empty_frames)."""
    content = message.content
    if type(content) is str or any(type(part) not in images or part.data is not _UNSET for part in content):
        return False
    return bool(content) or _TAGS[type(message)] != "assistant" or not frame_is_interrupted(
        None if message.stopReason is _UNSET else message.stopReason,
        None if message.errorMessage is _UNSET else message.errorMessage)


def struct_bones(messages: list[Any], hinted: set[str], kinds: dict[Any, Any], structs: Structs = _STRUCTS,
                 flags: bool = True) -> Iterator[Bone]:
    """Each message's bones from the structs it was decoded into (these, or the fast reader's own: it makes
    them as it reads when a provider is asked); hinted gets the formats of their native hints (and
    BLANK_TEXT for a blank text, once).  flags: look for what no bone shows (BLANK_TEXT, ERROR_CONTENT, IMAGE);
    the sparse judgment's few messages pass False: the file's read looked at every message for them already
    (struct_hints), and a judgment from the light view is made only when it found none."""
    result, assistant, user = structs[:3]
    if flags:
        if BLANK_TEXT not in hinted and blank_or_empty(messages, False):
            hinted.add(BLANK_TEXT)
        if ERROR_CONTENT not in hinted and error_content(messages, result):
            hinted.add(ERROR_CONTENT)
        if IMAGE not in hinted and image_sent(messages, structs):
            hinted.add(IMAGE)
    for message in messages:
        if message.hint is not _UNSET:
            hinted.add(hint_format(message.hint))
        kind = type(message)
        if kind is result:
            call_id = message.toolCallId
            yield ("toolResult", (), MISSING if call_id is _UNSET else call_id, False)
        elif kind is assistant:
            stop, error = message.stopReason, message.errorMessage
            yield ("assistant", _parts(message.content, kinds, structs, hinted), MISSING,
                   frame_is_interrupted(None if stop is _UNSET else stop, None if error is _UNSET else error))
        else:
            yield ("user" if kind is user else "system", _parts(message.content, kinds, structs, hinted), MISSING,
                   False)


_HINT_OF = attrgetter("hint")


class ItemShapes:
    """The Responses items each message of a file is written as (formats.skeleton.responses_items), as the fast
    reader learns them from its structs: a Responses verdict is then judged from the light view and these
    (providers.sparse_items), without any message's bones.  `of[i]`: message i's shape, a number into `table`
    of (items, the item offsets of its calls); shape 0 is one item and no call (every message but an
    assistant's).  A transcript's assistant messages are of a few shapes: a million of them hold a few dozen."""

    __slots__ = ("of", "table", "_known")

    def __init__(self) -> None:
        self.of = array("H")
        self.table: list[tuple[int, tuple[int, ...]]] = [(1, ())]
        self._known: dict[Any, int] = {}

    def shape(self, kinds: tuple[type, ...], stopped: bool | None, structs: Structs) -> int:
        """The number of the shape of an assistant message whose parts are of these struct classes (stopped: its
        turn stopped abnormally; None: not read yet, as it matters only to a message written as no item)."""
        key = (kinds, stopped)
        found = self._known.get(key)
        if found is None:
            _, _, _, call, image, named = structs
            parts = tuple(("", "") if kind is call else "image" if kind is image else named[kind] for kind in kinds)
            found = self._known[key] = len(self.table)
            self.table.append(responses_items(("assistant", parts, MISSING, bool(stopped))))
            if found > 0xFFFF:
                raise OverflowError("more message shapes than ItemShapes numbers")
        return found


def struct_items(messages: list[Any], shapes: ItemShapes, structs: Structs) -> None:
    """Add these structs' shapes to `shapes` (ItemShapes): a step per assistant message only."""
    assistant = structs[1]
    first = len(shapes.of)
    shapes.of.frombytes(bytes(2 * len(messages)))
    of, table, shape, known = shapes.of, shapes.table, shapes.shape, shapes._known.get
    for at in compress(range(len(messages)), map(is_, map(type, messages), repeat(assistant))):
        message = messages[at]
        kinds = tuple(map(type, message.content))
        number = known((kinds, None))  # (a shape met before: shape's own lookup, without its call)
        if number is None:
            number = shape(kinds, None, structs)
        if table[number][0] == 0:  # written as no item unless it stopped abnormally (an incomplete message)
            stop, error = message.stopReason, message.errorMessage
            number = shape(kinds, frame_is_interrupted(None if stop is _UNSET else stop,
                                                       None if error is _UNSET else error), structs)
        of[first + at] = number


def struct_hints(messages: list[Any], hinted: set[str], structs: Structs = _STRUCTS) -> None:
    """hinted gets the formats of the native hints these structs carry (struct_bones' hinted, without bones):
    one C-level pass when none carries any, as in almost every file.  It gets BLANK_TEXT too for a blank text
    or a message written with no block (blank_or_empty), and ERROR_CONTENT for an error result's content Anthropic
    refuses (error_content), and IMAGE for an image a user, system or result message sends (image_sent; structs:
    the reader's struct classes): the light view, which the sparse judgment reads, shows none of them, so the verdict
    is judged on every message's bones (or the full request) instead."""
    if BLANK_TEXT not in hinted and blank_or_empty(messages, True):
        hinted.add(BLANK_TEXT)
    if ERROR_CONTENT not in hinted and error_content(messages, structs[0]):
        hinted.add(ERROR_CONTENT)
    if IMAGE not in hinted and image_sent(messages, structs):
        hinted.add(IMAGE)
    hints = list(map(_HINT_OF, messages))
    if hints.count(_UNSET) != len(hints):
        hinted.update(hint_format(hint) for hint in hints if hint is not _UNSET)


def bones_at(raws: Any, indices: list[int]) -> list[Bone]:
    """The bones of the messages at these indices, in order (raws: the fast path's Spans), decoded from their
    raw bytes: what providers.sparse judges of a request, a few regions of it (Spans.documents: of a file
    read a block at a time, each block holding some of them cut into raw spans again, only those decoded)."""
    hinted: set[str] = set()
    kinds: dict[Any, Any] = {}
    wanted = sorted(set(indices))
    made: list[Bone] = []
    for document in raws.documents(wanted):
        made.extend(struct_bones(_DECODE(document), hinted, kinds, flags=False))
    raws.check()  # what was read again is what the light view was built from
    if len(made) != len(wanted):
        raise raws.changed()
    if wanted == indices:
        return made
    found = dict(zip(wanted, made, strict=True))
    return list(map(found.__getitem__, indices))


def fast_bones(raws: Any, size: int) -> tuple[list[Bone], set[str]]:
    """Every message's bones (raws: the fast path's Spans, `size` messages) and the formats of the native
    hints they carry (see formats.skeleton.all_bones)."""
    bones: list[Bone] = []
    hinted: set[str] = set()
    kinds: dict[Any, Any] = {}
    for start in range(0, size, CHUNK):
        pieces = raws.pieces(range(start, min(size, start + CHUNK)))
        bones.extend(struct_bones(_DECODE(b"".join((b"[", b",".join(pieces), b"]"))), hinted, kinds))
    raws.check()  # what was read again is what the light view was built from
    return bones, hinted

