"""A PEP 517 build backend for the etprof package with nothing but the
standard library: the package is pure Python (a ctypes binding), so its
wheel is a zip of etprof/*.py and a .dist-info. No setuptools, no wheel
package, no bdist_wheel: `pip install --no-build-isolation ./python` works
with any python3 >= 3.9 (a pyenv or other non-Debian interpreter first on
PATH included), and offline.

The project's metadata is pyproject.toml's [project] table; it is read with
tomllib where there is one (3.11+), else with the small reader below, which
takes only the flat keys this file uses."""
import base64, hashlib, io, os, re, tarfile, zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "etprof"


def _project():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        text = f.read()
    try:
        import tomllib
        return tomllib.loads(text.decode())["project"]
    except ImportError:
        pass
    project, section = {}, None
    for line in text.decode().splitlines():
        line = line.strip()
        if line.startswith("["):
            section = line.strip("[]").strip()
            continue
        m = re.match(r'^([A-Za-z_-]+)\s*=\s*"([^"]*)"$', line)
        if section == "project" and m:
            project[m.group(1)] = m.group(2)
    return project


def _tag(p):
    return f"{p['name'].replace('-', '_')}-{p['version']}"


def _metadata(p):
    lines = ["Metadata-Version: 2.1", f"Name: {p['name']}", f"Version: {p['version']}",
             f"Summary: {p.get('description', '')}"]
    if p.get("requires-python"):
        lines.append(f"Requires-Python: {p['requires-python']}")
    lic = p.get("license")
    if isinstance(lic, dict) and lic.get("text"):
        lines.append(f"License: {lic['text']}")
    for extra, reqs in sorted((p.get("optional-dependencies") or {}).items()):
        lines.append(f"Provides-Extra: {extra}")
        lines += [f'Requires-Dist: {r}; extra == "{extra}"' for r in reqs]
    body = ""
    readme = p.get("readme")
    if isinstance(readme, str) and os.path.exists(os.path.join(ROOT, readme)):
        lines.append("Description-Content-Type: text/markdown")
        with open(os.path.join(ROOT, readme), encoding="utf-8") as f:
            body = "\n" + f.read()
    return ("\n".join(lines) + "\n" + body).encode()


def _sources():
    """The package's files, sorted (the wheel's bytes depend on nothing else)."""
    out = []
    for root, dirs, files in os.walk(os.path.join(ROOT, PACKAGE)):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        out += [os.path.join(root, n) for n in sorted(files) if n.endswith(".py")]
    return out


def _dist_info(p):
    return f"{_tag(p)}.dist-info"


def _write_dist_info(directory, p):
    d = os.path.join(directory, _dist_info(p))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "METADATA"), "wb") as f:
        f.write(_metadata(p))
    return os.path.basename(d)


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    return _write_dist_info(metadata_directory, _project())


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    p = _project()
    name = f"{_tag(p)}-py3-none-any.whl"
    info = _dist_info(p)
    record = []
    # A fixed timestamp: the same sources give the same wheel.
    stamp = (1980, 1, 1, 0, 0, 0)

    def add(zf, arc, data):
        zi = zipfile.ZipInfo(arc, stamp)
        zi.compress_type = zipfile.ZIP_DEFLATED
        zi.external_attr = 0o644 << 16
        zf.writestr(zi, data)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{arc},sha256={digest},{len(data)}")

    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w") as zf:
        for path in _sources():
            with open(path, "rb") as f:
                add(zf, os.path.relpath(path, ROOT).replace(os.sep, "/"), f.read())
        add(zf, f"{info}/METADATA", _metadata(p))
        add(zf, f"{info}/WHEEL", b"Wheel-Version: 1.0\nGenerator: etprof_build\n"
                                 b"Root-Is-Purelib: true\nTag: py3-none-any\n")
        record.append(f"{info}/RECORD,,")
        zi = zipfile.ZipInfo(f"{info}/RECORD", stamp)
        zi.external_attr = 0o644 << 16
        zf.writestr(zi, "\n".join(record) + "\n")
    return name


def build_sdist(sdist_directory, config_settings=None):
    p = _project()
    base = _tag(p)
    name = f"{base}.tar.gz"
    files = [os.path.join(ROOT, n) for n in ("pyproject.toml", "README.md")]
    files += [os.path.join(ROOT, "_build", "etprof_build.py")] + _sources()
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz") as tf:
        for path in files:
            ti = tf.gettarinfo(path, f"{base}/{os.path.relpath(path, ROOT)}")
            ti.mtime, ti.uid, ti.gid, ti.uname, ti.gname = 0, 0, 0, "", ""
            with open(path, "rb") as f:
                tf.addfile(ti, f)
        pkg_info = _metadata(p)
        ti = tarfile.TarInfo(f"{base}/PKG-INFO")
        ti.size = len(pkg_info)
        tf.addfile(ti, io.BytesIO(pkg_info))
    return name
