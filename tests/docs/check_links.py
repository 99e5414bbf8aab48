#!/usr/bin/env python3
"""Checks the relative links of README.md and docs/**/*.md: each must name a file or folder that exists,
and a #fragment into a Markdown file must name one of its headings (GitHub's anchors: the heading's text
lower-cased, punctuation but '-' and '_' dropped, spaces as '-', '-1', '-2' ... for repeats).

Usage: check_links.py SOURCE_DIR. Prints one line per broken link (file:line: link: reason) and exits 1
if there is any, 0 otherwise. Links inside fenced code blocks and inline code are not links.
check_links.py --readme-max-lines N SOURCE_DIR checks instead that README.md has at most N lines (issue
26: a short README; the rest lives under docs/).
"""
import pathlib
import re
import sys

LINK = re.compile(r'!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)')


def strip_code(line):
    return re.sub(r'`[^`]*`', '', line)


def lines_outside_fences(text):
    fence = None
    for number, line in enumerate(text.split('\n'), 1):
        m = re.match(r'^\s*(```+|~~~+)', line)
        if m:
            if fence is None:
                fence = m.group(1)[0] * 3
            elif line.strip().startswith(fence):
                fence = None
            continue
        if fence is None:
            yield number, line


def anchors(path):
    seen = {}
    result = set()
    for _, line in lines_outside_fences(path.read_text(encoding='utf-8')):
        m = re.match(r'^#{1,6}\s+(.*?)\s*#*\s*$', line)
        if not m:
            continue
        slug = re.sub(r'[^\w\- ]', '', m.group(1).lower()).replace(' ', '-')
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        result.add(slug if count == 0 else f'{slug}-{count}')
    return result


def main():
    if len(sys.argv) == 4 and sys.argv[1] == '--readme-max-lines':
        limit = int(sys.argv[2])
        count = len(pathlib.Path(sys.argv[3], 'README.md').read_text(encoding='utf-8').splitlines())
        print(f'README.md: {count} lines, at most {limit}')
        return 0 if count <= limit else 1
    root = pathlib.Path(sys.argv[1]).resolve()
    pages = [root / 'README.md'] + sorted((root / 'docs').rglob('*.md'))
    broken = []
    checked = 0
    for page in pages:
        for number, line in lines_outside_fences(page.read_text(encoding='utf-8')):
            for target in LINK.findall(strip_code(line)):
                if re.match(r'^[a-zA-Z][a-zA-Z0-9+.-]*:', target):
                    continue  # https:, mailto: ...
                checked += 1
                path_part, _, fragment = target.partition('#')
                where = f'{page.relative_to(root)}:{number}: {target}'
                dest = (page.parent / path_part).resolve() if path_part else page
                if not dest.exists():
                    broken.append(f'{where}: no such file')
                elif fragment and dest.suffix == '.md' and fragment not in anchors(dest):
                    broken.append(f'{where}: no heading #{fragment} in {dest.relative_to(root)}')
    for line in broken:
        print(line)
    print(f'{checked} relative links in {len(pages)} pages, {len(broken)} broken')
    return 1 if broken else 0


if __name__ == '__main__':
    sys.exit(main())
