#!/usr/bin/env python3
"""Adds the md5sums control file to .deb packages that lack one (cargo-deb writes none).

    deb-md5sums.py PACKAGE.deb [...]

`dpkg --verify` and debsums read it to check the installed files. It lists every regular file
of the data archive except the conffiles, as dh_md5sums does. Only the control member is
rewritten; the data archive is copied as it is (no recompression). Uses ar (binutils).
"""

import hashlib
import io
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile


def members(deb, workdir):
    names = subprocess.run(["ar", "t", deb], check=True, capture_output=True, text=True).stdout.split()
    subprocess.run(["ar", "x", os.path.abspath(deb)], check=True, cwd=workdir)
    return names


def md5sums(data_path, conffiles):
    lines = []
    with tarfile.open(data_path) as data:
        for info in data:
            if not info.isfile():
                continue
            name = info.name[2:] if info.name.startswith("./") else info.name
            if "/" + name in conffiles:
                continue
            digest = hashlib.md5(data.extractfile(info).read()).hexdigest()
            lines.append(f"{digest}  {name}\n")
    return "".join(sorted(lines, key=lambda l: l[34:]))


def add(deb):
    with tempfile.TemporaryDirectory() as work:
        names = members(deb, work)
        control_name = next(n for n in names if n.startswith("control.tar"))
        data_name = next(n for n in names if n.startswith("data.tar"))
        control_path = os.path.join(work, control_name)
        with tarfile.open(control_path) as control:
            entries = [(i, control.extractfile(i).read() if i.isfile() else None) for i in control]
        files = {i.name.lstrip("./"): body for i, body in entries if body is not None}
        if "md5sums" in files:
            print(f"deb-md5sums: {deb} has md5sums already")
            return
        conffiles = set(files.get("conffiles", b"").decode().split())
        sums = md5sums(os.path.join(work, data_name), conffiles).encode()
        mode = "w:" + control_name.rsplit(".", 1)[-1] if control_name.count(".") > 1 else "w"
        with tarfile.open(control_path, mode, format=tarfile.GNU_FORMAT) as out:
            for info, body in entries:
                out.addfile(info, io.BytesIO(body) if body is not None else None)
            info = tarfile.TarInfo("./md5sums")
            info.size, info.mode, info.mtime = len(sums), 0o644, entries[0][0].mtime
            out.addfile(info, io.BytesIO(sums))
        rebuilt = os.path.join(work, "rebuilt.deb")
        subprocess.run(["ar", "rc", rebuilt, *names], check=True, cwd=work)
        shutil.move(rebuilt, deb)
        count = sums.count(b"\n")
        print(f"deb-md5sums: {deb}: {count} files")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for path in sys.argv[1:]:
        add(path)
