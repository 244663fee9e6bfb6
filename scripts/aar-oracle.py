#!/usr/bin/env python3
"""An Apple Archive reader written apart from the Swift one, from the format notes alone: the
tests and the benchmark check what `assetpack aar create` writes against it.

    aar-oracle.py FILE                 prints the container and every entry as JSON
    aar-oracle.py FILE --extract DIR   also writes the entries' files, folders and links to DIR

Chunks are decoded with Python's zlib (pbzz) and lzma (pbzx) and with the reference LZFSE
implementation's binding (pbze, module liblzfse from pyliblzfse). Refuses anything it does not
understand rather than guessing."""
import hashlib
import json
import lzma
import os
import struct
import sys
import zlib


def fail(why):
    sys.exit(f"aar-oracle: {why}")


def decode_chunk(letter, raw, stored):
    if letter == b"e":
        import liblzfse
        return liblzfse.decompress(stored)
    if letter == b"z":
        return zlib.decompress(stored)
    if letter == b"x":
        return lzma.decompress(stored, format=lzma.FORMAT_XZ)
    fail(f"codec pbz{letter.decode()} is not read here")


def stream(data):
    """The AA01 stream and a description of the container around it."""
    if data[:4] == b"AA01":
        return data, {"container": "none"}
    if data[:3] != b"pbz" or len(data) < 12:
        fail("neither AA01 nor a pbz container")
    letter = data[3:4]
    block_size = struct.unpack(">Q", data[4:12])[0]
    position, chunks, out = 12, [], []
    while position < len(data):
        if position + 16 > len(data):
            fail(f"truncated chunk header at {position}")
        raw, stored = struct.unpack(">QQ", data[position:position + 16])
        position += 16
        payload = data[position:position + stored]
        if len(payload) != stored or raw > block_size or stored > raw:
            fail(f"bad chunk at {position - 16}: raw {raw}, stored {stored}, block {block_size}")
        position += stored
        decoded = payload if stored == raw else decode_chunk(letter, raw, payload)
        if len(decoded) != raw:
            fail(f"chunk at {position - stored - 16} decodes to {len(decoded)} bytes, not {raw}")
        chunks.append({"raw": raw, "stored": stored})
        out.append(decoded)
    return b"".join(out), {"container": "pbz" + letter.decode(), "blockSize": block_size, "chunks": chunks}


SIZES = {b"*": 0, b"1": 1, b"2": 2, b"4": 4, b"8": 8, b"F": 4, b"G": 20, b"H": 32, b"I": 48, b"J": 64, b"S": 8, b"T": 12}
BLOB = {b"A": 2, b"B": 4, b"C": 8}


def entries(aa):
    position, out = 0, []
    while position < len(aa):
        if aa[position:position + 4] != b"AA01":
            fail(f"no AA01 header at {position}")
        size = struct.unpack("<H", aa[position + 4:position + 6])[0]
        end = position + size
        if size < 6 or end > len(aa):
            fail(f"header at {position} has size {size}")
        field, entry, blobs = position + 6, {"fields": []}, []
        while field < end:
            key, subtype = aa[field:field + 3].decode(), aa[field + 3:field + 4]
            entry["fields"].append(key + subtype.decode())
            field += 4
            if subtype == b"P":
                n = struct.unpack("<H", aa[field:field + 2])[0]
                entry[key] = aa[field + 2:field + 2 + n].decode()
                field += 2 + n
            elif subtype in BLOB:
                width = BLOB[subtype]
                blobs.append((key, int.from_bytes(aa[field:field + width], "little")))
                field += width
            elif subtype in SIZES:
                width = SIZES[subtype]
                if subtype in b"1248":
                    entry[key] = int.from_bytes(aa[field:field + width], "little")
                elif subtype in b"ST":
                    entry[key] = struct.unpack("<q", aa[field:field + 8])[0]
                field += width
            else:
                fail(f"unknown subtype {subtype!r} at {field - 1}")
        if field != end:
            fail(f"fields overrun the header at {position}")
        position = end
        for key, n in blobs:
            blob = aa[position:position + n]
            if len(blob) != n:
                fail(f"blob {key} of {entry.get('PAT')} is truncated")
            if key == "DAT":
                entry["size"] = n
                entry["data"] = blob
            position += n
        out.append(entry)
    return out


def extract(items, root):
    for e in items:
        path = e["PAT"]
        if path.startswith("/") or ".." in path.split("/"):
            fail(f"unsafe path {path!r}")
        target = os.path.join(root, path)
        kind = chr(e["TYP"])
        if kind == "D":
            os.makedirs(target, exist_ok=True)
        elif kind == "F":
            with open(target, "wb") as f:
                f.write(e.get("data", b""))
            os.chmod(target, e.get("MOD", 0o644) & 0o777)
        elif kind == "L":
            os.symlink(e["LNK"], target)
        else:
            fail(f"entry type {kind} is not extracted here")


def main():
    if len(sys.argv) not in (2, 4) or (len(sys.argv) == 4 and sys.argv[2] != "--extract"):
        sys.exit(__doc__)
    with open(sys.argv[1], "rb") as f:
        data = f.read()
    aa, container = stream(data)
    items = entries(aa)
    if len(sys.argv) == 4:
        extract(items, sys.argv[3])
    listing = []
    for e in items:
        row = {"type": chr(e["TYP"]), "path": e["PAT"], "fields": e["fields"]}
        for key, name in (("MOD", "mode"), ("UID", "uid"), ("GID", "gid"), ("FLG", "flags"), ("MTM", "mtime"), ("CTM", "ctime"), ("LNK", "link")):
            if key in e:
                row[name] = e[key]
        if "data" in e:
            row["size"] = e["size"]
            row["sha256"] = hashlib.sha256(e["data"]).hexdigest()
        listing.append(row)
    container["streamSize"] = len(aa)
    container["entries"] = listing
    json.dump(container, sys.stdout)


main()
