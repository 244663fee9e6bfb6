#!/usr/bin/env python3
"""The small change bench/large.sh publishes as a new version, made in place in a corpus of
bench/corpus.py and undone afterwards, so that the corpus (gigabytes, made once) is reused:

  large-edit.py edit BACKUP_DIR CONTENT_DIR    appends a line to the first file of text/, rewrites
                                               4 KiB in the middle of the first of data/ and of
                                               models/generator.weights, and rewrites the first
                                               file of small/00/; what it changes goes first
                                               to BACKUP_DIR (bytes, length and times)
  large-edit.py restore BACKUP_DIR             puts every changed byte, length and time back, then
                                               removes BACKUP_DIR (nothing to do without it)

The edits are the same bytes every time."""
import json, os, shutil, sys

EDITS = [  # (folder under content/, kind, size): the folder's first file by name is edited
    ('text', 'append', 0),
    ('data', 'middle', 4096),
    ('models', 'middle', 4096),
    ('small/00', 'rewrite', 0),
    # The small-files corpora (`small`, `small300`, `small1m`): two files rewritten, two appended to.
    ('levels/level-00/00', 'rewrite', 0),
    ('items/item-00/00', 'rewrite', 0),
    ('dialogue/dialogu-00/00', 'append', 0),
    ('locales/locale-00/00', 'append', 0),
]


def first_file(folder):
    names = sorted(n for n in os.listdir(folder) if os.path.isfile(os.path.join(folder, n)))
    if not names:
        sys.exit(f'large-edit.py: {folder} has no file: not a corpus of bench/corpus.py')
    return os.path.join(folder, names[0])


def edit(backup, content):
    if os.path.exists(os.path.join(backup, 'edits.json')):
        restore(backup)
    os.makedirs(backup, exist_ok=True)
    records = []
    edits = [e for e in EDITS if os.path.isdir(os.path.join(content, e[0]))]   # a tiny corpus lacks some
    for rel, kind, size in edits:
        path = first_file(os.path.join(content, rel))
        st = os.stat(path)
        offset = st.st_size if kind == 'append' else (st.st_size // 2 // 4096 * 4096 if kind == 'middle' else 0)
        length = size if kind == 'middle' else (0 if kind == 'append' else st.st_size)
        with open(path, 'rb') as f:
            f.seek(offset)
            old = f.read(length)
        if len(old) != length:
            sys.exit(f'large-edit.py: {path} is shorter than expected ({st.st_size} bytes): not a corpus of bench/corpus.py')
        saved = os.path.join(backup, f'{len(records)}.bin')
        with open(saved, 'wb') as f:
            f.write(old)
        records.append({'path': path, 'offset': offset, 'size': st.st_size, 'saved': saved,
                        'atime_ns': st.st_atime_ns, 'mtime_ns': st.st_mtime_ns})
    with open(os.path.join(backup, 'edits.json'), 'w') as f:
        json.dump(records, f)   # written before any edit, so that a stop in between is undone
    for record, (rel, kind, size) in zip(records, edits):
        with open(record['path'], 'r+b') as f:
            f.seek(record['offset'])
            if kind == 'append':
                f.write(b'an appended line of the next version\n')
            elif kind == 'middle':
                f.write(bytes((i * 7 + 1) % 256 for i in range(size)))
            else:
                f.truncate(0)
                f.write(b'rewritten for the next version\n' * 40)


def restore(backup):
    index = os.path.join(backup, 'edits.json')
    if not os.path.exists(index):
        return
    with open(index) as f:
        records = json.load(f)
    for record in records:
        with open(record['saved'], 'rb') as f:
            old = f.read()
        with open(record['path'], 'r+b') as f:
            f.seek(record['offset'])
            f.write(old)
            f.truncate(record['size'])
        os.utime(record['path'], ns=(record['atime_ns'], record['mtime_ns']))
    shutil.rmtree(backup)


if __name__ == '__main__':
    if len(sys.argv) == 4 and sys.argv[1] == 'edit':
        edit(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 3 and sys.argv[1] == 'restore':
        restore(sys.argv[2])
    else:
        sys.exit(__doc__)
