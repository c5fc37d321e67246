#!/usr/bin/env python3
"""tools/check_braces.py [--fix] FILE...: the one brace style of samebits
(.clang-format): a function's body opens on a line of its own; every other
brace on the line that starts it. Reports each top-level function whose
header ends with ') {' (brace depth 0, outside comments, strings and
preprocessor lines); --fix moves those braces down. Exits 1 when it finds
one without --fix. (clang-format 14 reflows whole files, so this checks
the one rule clang-format cannot be asked to check alone.)"""
import re
import sys

HEADER_END = re.compile(r'\)\s*\{\s*$')
CONTROL = re.compile(r'\s*(if|for|while|switch|do|else)\b')


def scan(text):
    """Yields (line number, line, is a function header that keeps its brace)."""
    depth = 0
    in_comment = False
    continued = False          # inside a multi-line preprocessor line
    for number, line in enumerate(text.split('\n'), 1):
        stripped = line.rstrip()
        directive = continued or stripped.lstrip().startswith('#')
        continued = directive and stripped.endswith('\\')
        yield (number, line, depth == 0 and not in_comment and not directive
               and HEADER_END.search(stripped) is not None
               and not CONTROL.match(stripped)
               and '=' not in stripped.split('(')[0])
        if directive:
            continue
        i, quote = 0, None
        while i < len(line):
            c = line[i]
            if in_comment:
                if line.startswith('*/', i):
                    in_comment = False
                    i += 1
            elif quote:
                if c == '\\':
                    i += 1
                elif c == quote:
                    quote = None
            elif line.startswith('/*', i):
                in_comment = True
                i += 1
            elif line.startswith('//', i):
                break
            elif c in '"\'':
                quote = c
            elif c == '{':
                depth += 1
            elif c == '}':
                depth -= 1
            i += 1


def main(argv):
    fix = argv[:1] == ['--fix']
    files = argv[1:] if fix else argv
    found = 0
    for path in files:
        text = open(path).read()
        out = []
        for number, line, bad in scan(text):
            if bad:
                found += 1
                if fix:
                    out.append(re.sub(r'\s*\{\s*$', '', line))
                    out.append('{')
                    continue
                print(f'{path}:{number}: the function body opens on the '
                      f'header line: {line.strip()}')
            out.append(line)
        if fix:
            new = '\n'.join(out)
            if new != text:
                open(path, 'w').write(new)
    if found and not fix:
        print(f'check_braces: {found} function(s) open their body on the '
              'header line; tools/check_braces.py --fix moves the braces')
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
