"""json_diff.py - the first structural difference between two parsed JSON
documents, for the tests that compare etprof's JSON with an independent
decoder's (flatc) or with an adapter's expected graph. Standard library only."""


def _numbers_close(a, b, digits):
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) \
            and not isinstance(a, bool) and not isinstance(b, bool):
        return abs(float(a) - float(b)) <= 0.5 * 10.0 ** -digits + 1e-15 * abs(float(b))
    return False


def first_difference(a, b, path="$", float_digits=None, key_order=True):
    """None when a (what etprof wrote) equals b (the expectation), else
    "PATH: what differs". Array order always counts; object key order counts
    when key_order. With float_digits, a float leaf on either side equals a
    number on the other within half a unit of that many decimals (flatc
    prints doubles with a fixed number of decimals)."""
    if float_digits is not None and (isinstance(a, float) or isinstance(b, float)):
        return None if _numbers_close(a, b, float_digits) else "%s: %r != %r" % (path, a, b)
    if type(a) is not type(b):
        return "%s: type %s != %s" % (path, type(a).__name__, type(b).__name__)
    if isinstance(a, dict):
        if key_order and list(a.keys()) != list(b.keys()):
            return "%s: keys %s != %s" % (path, list(a.keys()), list(b.keys()))
        for k in (a if key_order else sorted(set(a) | set(b))):
            if k not in a:
                return "%s.%s: missing in output" % (path, k)
            if k not in b:
                return "%s.%s: not expected" % (path, k)
            d = first_difference(a[k], b[k], path + "." + k, float_digits, key_order)
            if d:
                return d
        return None
    if isinstance(a, list):
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, "%s[%d]" % (path, i), float_digits, key_order)
            if d:
                return d
        if len(a) != len(b):
            return "%s: %d items, expected %d" % (path, len(a), len(b))
        return None
    return None if a == b else "%s: %r != %r" % (path, a, b)
