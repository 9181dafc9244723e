#!/usr/bin/env python3
"""Checks the links between README.md, CHANGELOG.md and docs/*.md.

Every relative link must name a file or folder that exists, and every `#anchor` (in the same
file or another Markdown file) a heading there, by GitHub's slugs: lowercase, punctuation other
than `-` and `_` dropped, spaces turned into `-`, and `-1`, `-2`, ... after repeated headings.
Links to other sites (http, https, mailto) are not followed. Links inside code blocks and code
spans are not links.

    python3 scripts/check_links.py [FILE.md ...]

Exits 1 naming file:line of each broken link, 0 when all hold. Standard library only.
"""

import functools
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# [text](target) and ![alt](target), target up to the first space or closing bracket (an
# optional "title" may follow); <target> in angle brackets too.
INLINE = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+\"[^\"]*\")?\s*\)")
# [label]: target
DEFINITION = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
EXTERNAL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def default_files():
    files = [ROOT / "README.md", ROOT / "CHANGELOG.md"]
    files += sorted((ROOT / "docs").glob("*.md"))
    return [f for f in files if f.exists()]


def lines_outside_code(text):
    """(line number, line) for every line not inside a fenced code block."""
    fence = None
    for number, line in enumerate(text.splitlines(), 1):
        match = FENCE.match(line)
        if fence is None:
            if match:
                fence = match.group(1)
                continue
            yield number, line
        elif match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence):
            fence = None


def slug(heading):
    """GitHub's anchor for a heading's text."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML tags
    text = text.replace("`", "").lower()
    text = "".join(c for c in text if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


@functools.lru_cache(maxsize=None)
def anchors(path):
    """The anchors of a Markdown file's headings."""
    seen = {}
    found = set()
    for _, line in lines_outside_code(path.read_text(encoding="utf-8")):
        match = HEADING.match(line)
        if not match:
            continue
        base = slug(match.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return frozenset(found)


def targets(line):
    line = CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)
    for match in INLINE.finditer(line):
        yield match.group(1)
    match = DEFINITION.match(line)
    if match:
        yield match.group(1)


def check(path):
    problems = []
    shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    for number, line in lines_outside_code(path.read_text(encoding="utf-8")):
        for target in targets(line):
            target = target.strip("<>")
            if EXTERNAL.match(target):
                continue
            file_part, _, anchor = target.partition("#")
            dest = (path.parent / file_part).resolve() if file_part else path
            where = f"{shown}:{number}: `{target}`"
            if not dest.exists():
                problems.append(f"{where}: no such file {file_part}")
                continue
            if not anchor:
                continue
            if dest.is_dir() or dest.suffix.lower() != ".md":
                problems.append(f"{where}: an anchor into a file that is not Markdown")
            elif anchor not in anchors(dest):
                problems.append(f"{where}: no heading `#{anchor}` in {file_part or shown}")
    return problems


def main(argv):
    files = [Path(a).resolve() for a in argv] or default_files()
    problems = [p for f in files for p in check(f)]
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(f"{len(problems)} broken link(s)", file=sys.stderr)
        return 1
    print(f"links: {len(files)} files checked, none broken")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
