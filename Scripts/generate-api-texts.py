#!/usr/bin/env python3
"""Writes the wallet API's English text catalog from the code.

Every message the wallet API can answer is a `LocalizableText` literal at a known place: an error
of the catalogue (`ErrorKind`'s `Entry(..., message: "...")`), a `DomainError(..., message: "...")`,
`DomainError.invalidField(field, "...")`, `.passwordRules("...")`, `.passcodeRules("...")`, the
helpers that take one (`DPoPProof.invalid`, `tooMany`, `FederationError.invalidIDToken`,
`LoginStatisticsError(..., message:)`), a credential rule (`rules.append("...")`), a constant
declared `: LocalizableText = "..."` and a literal written `LocalizableText("...")`. Its key is the literal with `{1}`, `{2}`, ... for the
interpolated values, numbered across a `+` as `LocalizableText.+` numbers them; each side of a
`? :` is a key of its own.

Usage: generate-api-texts.py OUTPUT   (Scripts/generate-api runs it; --check compares)
"""
import json
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
SOURCES = ["Sources/LatchkeyCore", "Server/Sources/LatchkeyDomain", "Server/Sources/LatchkeyHTTP"]
# The operators' code (the admin API, the console) and the configuration's errors stay English.
EXCLUDED = ["Server/Sources/LatchkeyDomain/Operator", "Server/Sources/LatchkeyDomain/Configuration"]
MESSAGE_CALLS = {"DomainError", "Entry", "LoginStatisticsError"}
MARKERS = [
    (re.compile(r"\bmessage:\s*"), "message"),
    (re.compile(r"\.invalidField\("), "second"),
    (re.compile(r"(?:\.|\b)(?:passwordRules|passcodeRules|invalid|tooMany|invalidIDToken)\("), "first"),
    (re.compile(r"\brules\.append\("), "first"),
    (re.compile(r":\s*LocalizableText\s*=\s*"), "first"),
    (re.compile(r"\bLocalizableText\("), "first"),
]


def literal(text, start):
    """The Swift string literal at `start` (a `"`): (key pieces, number of interpolations, end)."""
    assert text[start] == '"'
    if text.startswith('"""', start):
        raise SystemExit(f"multi-line literal at {start}: write the message on one line")
    i, out, count = start + 1, "", 0
    while True:
        c = text[i]
        if c == '"':
            return out, count, i + 1
        if c == "\\":
            n = text[i + 1]
            if n == "(":
                depth, j = 1, i + 2
                while depth:
                    if text[j] == '"':
                        _, _, j = literal(text, j)
                        continue
                    depth += {"(": 1, ")": -1}.get(text[j], 0)
                    j += 1
                count += 1
                out += "\0"  # numbered once the whole expression is known
                i = j
                continue
            out += {"n": "\n", "t": "\t", "0": "\0", '"': '"', "\\": "\\", "'": "'"}[n]
            i += 2
            continue
        out += c
        i += 1


def expression(text, start):
    """The keys of the expression at `start`: literals joined by `+`, alternatives of `? :`."""
    groups, current, depth, i = [], [], 0, start
    while i < len(text):
        c = text[i]
        if c == '"':
            piece, _, i = literal(text, i)
            if depth == 0:
                current.append(piece)
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                break
            depth -= 1
        elif depth == 0 and c == ",":
            break
        elif depth == 0 and c in "?:":
            groups.append(current)
            current = []
        elif depth == 0 and c == "\n":
            rest = text[i + 1:].lstrip()
            before = text[start:i].rstrip()
            if not (rest[:1] in "+?:" or before[-1:] in "+?:(" or before.endswith("message:")):
                break
        i += 1
    groups.append(current)
    keys = []
    for pieces in groups:
        if not pieces:
            continue
        joined, number = "", 0
        for piece in pieces:
            for ch in piece:
                if ch == "\0":
                    number += 1
                    joined += "{%d}" % number
                else:
                    joined += ch
        keys.append(joined)
    return keys


def enclosing_call(text, position):
    """The name of the call whose parentheses `position` is in."""
    depth, i = 0, position - 1
    while i >= 0:
        c = text[i]
        if c == ")":
            depth += 1
        elif c == "(":
            if depth == 0:
                match = re.search(r"([A-Za-z_][A-Za-z0-9_]*)\s*$", text[:i])
                return match.group(1) if match else ""
            depth -= 1
        i -= 1
    return ""


def skip_argument(text, start):
    """The position after the first argument of a call (its comma)."""
    depth, i = 0, start
    while i < len(text):
        c = text[i]
        if c == '"':
            _, _, i = literal(text, i)
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            return i + 1
        i += 1
    return i


def keys_of(text):
    found = set()
    # Comments say what code does; a literal quoted in one is not a message.
    text = re.sub(r"^\s*//.*$", "", text, flags=re.MULTILINE)
    for pattern, kind in MARKERS:
        for match in pattern.finditer(text):
            start = match.end()
            if kind == "message" and enclosing_call(text, match.start()) not in MESSAGE_CALLS:
                continue
            if kind == "second":
                start = skip_argument(text, start)
            while text[start] in " \n\t":
                start += 1
            if text[start] != '"' and not text[start:].startswith(("kind ==", "error.code", "remaining")):
                # A variable or a call: its texts are keys where they are written.
                if '"' not in text[start:text.find("\n", start)]:
                    continue
            found.update(expression(text, start))
    return found


def main():
    keys = set()
    for source in SOURCES:
        for directory, _, files in os.walk(os.path.join(ROOT, source)):
            relative = os.path.relpath(directory, ROOT)
            if any(relative == e or relative.startswith(e + "/") for e in EXCLUDED):
                continue
            for name in files:
                if name.endswith(".swift"):
                    with open(os.path.join(directory, name), encoding="utf-8") as handle:
                        keys.update(keys_of(handle.read()))
    lines = [
        "# Generated by Scripts/generate-api from the code's messages (Scripts/generate-api-texts.py): do not edit.",
        "# The wallet API's messages in English; each key is the English text, {1}, {2}, ... its values.",
        "# A translation (../<language>/api.yaml) has exactly these keys; an issuer's file may change any text.",
    ]
    for key in sorted(keys):
        quoted = json.dumps(key, ensure_ascii=False)
        lines.append(f"{quoted}: {quoted}")
    with open(sys.argv[1], "w", encoding="utf-8") as out:
        out.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
