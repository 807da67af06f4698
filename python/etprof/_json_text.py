"""JSON text byte for byte as the C writer (src/util/jsonw.c) writes it, for
the small documents the CLI builds itself and hands to the library (the
diff's gate outcome and options): the same bundle bytes from Python as from
`etprof diff -o`. Flat objects of str, bool, int, float and None only."""
import decimal


def number(v):
    """A double as etp_jw_double() writes it: the shortest digits that read
    back (Python's repr finds the same ones), printed as C's %g would print
    them (fixed when the exponent is in [-4, digits), else d.ddde+XX), with
    ".0" added to an integer-looking value; non-finite values are null."""
    if v != v or v in (float("inf"), float("-inf")):
        return "null"
    sign = "-" if str(v).startswith("-") else ""
    if v == 0:
        return sign + "0.0"
    t = decimal.Decimal(repr(abs(v))).normalize().as_tuple()
    dig = "".join(map(str, t.digits))
    n = len(dig)
    x = n - 1 + t.exponent  # decimal exponent of the first digit
    if -4 <= x < n:
        if x >= 0:
            body = dig[:x + 1] + ("." + dig[x + 1:] if n > x + 1 else "")
        else:
            body = "0." + "0" * (-x - 1) + dig
    else:
        body = dig[0] + ("." + dig[1:] if n > 1 else "") + "e" + ("-" if x < 0 else "+") + (
            f"{abs(x):02d}")
    if "." not in body and "e" not in body:
        body += ".0"
    return sign + body


def string(s):
    """A JSON string as jw_string_body() escapes it."""
    out = ['"']
    for ch in s:
        c = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif c < 0x20 or c == 0x7F:
            out.append(f"\\u{c:04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def value(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return number(v)
    if isinstance(v, str):
        return string(v)
    raise TypeError(f"no JSON text for {type(v).__name__}")


def pretty(doc):
    """A flat object as a pretty writer at depth 0 writes it, with the
    newline etp_jw_take() adds."""
    if not doc:
        return "{}\n"
    members = ",".join(f"\n  {string(k)}: {value(v)}" for k, v in doc.items())
    return "{" + members + "\n}\n"


def compact(doc):
    """A flat object as a compact writer writes it (no spaces)."""
    return "{" + ",".join(f"{string(k)}:{value(v)}" for k, v in doc.items()) + "}"
