"""pi's string functions as JavaScript computes them, for the ids pi makes (pi_responses, pi_foreign): JavaScript
reads a string as UTF-16 code units, so a character past U+FFFF (an emoji) counts, hashes and is replaced as two."""

from __future__ import annotations

import re

_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]")


def made_safe(text: str) -> str:
    """`text.replace(/[^a-zA-Z0-9_-]/g, "_")`: each code unit outside the set made `_` (two for an emoji)."""
    return _UNSAFE.sub(lambda found: "__" if ord(found.group()) > 0xFFFF else "_", text)


def js_slice(text: str, length: int) -> str:
    """`text.slice(0, length)`, counted in UTF-16 code units (an emoji cut in two keeps its first half)."""
    if text.isascii():
        return text[:length]
    units = text.encode("utf-16-le", "surrogatepass")[:2 * length]
    return units.decode("utf-16-le", "surrogatepass")


def short_hash(text: str) -> str:
    """pi's shortHash (packages/ai/src/utils/hash.ts): two 32-bit multiplicative hashes over UTF-16 code units."""
    def imul(a: int, b: int) -> int:
        return (a * b) & 0xFFFFFFFF

    h1, h2 = 0xDEADBEEF, 0x41C6CE57
    units = text.encode("utf-16-le", "surrogatepass")
    for index in range(0, len(units), 2):
        unit = units[index] | units[index + 1] << 8
        h1 = imul(h1 ^ unit, 2654435761)
        h2 = imul(h2 ^ unit, 1597334677)
    h1 = imul(h1 ^ (h1 >> 16), 2246822507) ^ imul(h2 ^ (h2 >> 13), 3266489909)
    h2 = imul(h2 ^ (h2 >> 16), 2246822507) ^ imul(h1 ^ (h1 >> 13), 3266489909)
    return base36(h2 & 0xFFFFFFFF) + base36(h1 & 0xFFFFFFFF)


def base36(number: int) -> str:
    digits = ""
    while True:
        number, rest = divmod(number, 36)
        digits = "0123456789abcdefghijklmnopqrstuvwxyz"[rest] + digits
        if not number:
            return digits
