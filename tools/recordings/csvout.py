"""Writes a header line and data rows to a CSV file."""


def write_lines(path, header, lines, eol="\n"):
    n = 0
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(header + eol)
        buf = []
        for line in lines:
            buf.append(line)
            if len(buf) >= 2000:
                f.write(eol.join(buf) + eol)
                n += len(buf)
                buf = []
        if buf:
            f.write(eol.join(buf) + eol)
            n += len(buf)
    return n
