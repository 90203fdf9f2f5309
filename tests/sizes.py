#!/usr/bin/env python3
"""The size limits the engine issue set (issue 31): no file in replay/ over 600 lines, and no
function in replay/ or formats/ over 150 lines. A function is a definition whose signature opens
at the start of a line and whose body closes at the next '}' there, the way clang-format lays them
out here; a signature that ends in ';' first is a declaration.
Prints every file or function over its limit and fails on any."""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
FILE_LIMIT = {"replay": 600}
FUNCTION_LIMIT = {"replay": 150, "formats": 150}
# A signature's first line: a return type and a name, then its argument list opening.
SIGNATURE = re.compile(r"^(?!namespace|class |struct |enum |using |template|typedef|extern)[A-Za-z_][^;]*\(")

failures = []
for folder in sorted(set(FILE_LIMIT) | set(FUNCTION_LIMIT)):
    for path in sorted((ROOT / folder).rglob("*")):
        if path.suffix not in (".cpp", ".hpp"):
            continue
        lines = path.read_text(encoding="utf-8").splitlines()
        where = path.relative_to(ROOT)
        if folder in FILE_LIMIT and len(lines) > FILE_LIMIT[folder]:
            failures.append(f"{where}: {len(lines)} lines (at most {FILE_LIMIT[folder]})")
        if folder not in FUNCTION_LIMIT:
            continue
        start, in_body = None, False
        for number, line in enumerate(lines, 1):
            code = line.split("//")[0].rstrip()
            if start is None:
                if SIGNATURE.match(line):
                    start, in_body = number, False
                else:
                    continue
            if not in_body:
                if code.endswith(";"):
                    start = None  # a declaration
                elif code.endswith("{"):
                    in_body = True
                continue
            if line.startswith("}"):
                length = number - start + 1
                if length > FUNCTION_LIMIT[folder]:
                    failures.append(f"{where}:{start}: a function of {length} lines (at most {FUNCTION_LIMIT[folder]}): {lines[start - 1].strip()}")
                start = None

for failure in failures:
    print(failure)
sys.exit(1 if failures else 0)
