#!/usr/bin/env python3
"""Runs a systemd service unit's ExecStart the way systemd would, where no systemd runs.

Used by scripts/deb-test.sh on the unit the Debian package installed. Run as root:

    deb-unit.py UNIT_FILE READY_FILE

From the unit's [Service] section it takes ExecStart, User, Group, UMask, StateDirectory,
StateDirectoryMode, NoNewPrivileges, CapabilityBoundingSet, AmbientCapabilities,
LimitNOFILE and Type=notify, and it:

- makes /var/lib/<StateDirectory> as systemd does (owned by User:Group, StateDirectoryMode);
- starts ExecStart as User:Group with no supplementary groups, the unit's umask, a clean
  environment (PATH, LANG, NOTIFY_SOCKET), the working directory /, no new privileges and
  an empty capability bounding set (through setpriv);
- listens on NOTIFY_SOCKET like the service manager and writes READY_FILE when the service
  sends READY=1 (fails if the service exits first or takes over 60 s);
- on SIGTERM, stops the service like `systemctl stop` (SIGTERM, then SIGKILL after
  TimeoutStopSec) and exits with its exit status, printing the notifications it received;
- when the service exits by itself, says whether systemd would start it again (Restart=,
  RestartPreventExitStatus=, SuccessExitStatus=) and exits with the service's exit status.

The namespaces (ProtectSystem, PrivateTmp...) and the system-call filter are not applied: a
container has no systemd to do it; `systemd-analyze security` rates them instead.
"""

import os
import grp
import pwd
import resource
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import time


def service_section(path):
    settings = {}
    section = None
    with open(path, encoding="utf-8") as f:
        for raw in f:
            line = raw.strip()
            if not line or line.startswith(("#", ";")):
                continue
            if line.startswith("["):
                section = line.strip("[]")
                continue
            if section != "Service" or "=" not in line:
                continue
            key, value = line.split("=", 1)
            settings.setdefault(key.strip(), []).append(value.strip())
    return settings


def would_restart(settings, code):
    """systemd's Restart= rule for a service that exited by itself with `code` (a negative
    code is a signal), as a (yes/no, why) pair."""
    restart = last(settings, "Restart", "no")
    prevent = " ".join(settings.get("RestartPreventExitStatus", [])).split()
    success = ["0"] + " ".join(settings.get("SuccessExitStatus", [])).split()
    if code >= 0 and str(code) in prevent:
        return False, f"exit status {code} is in RestartPreventExitStatus"
    clean = code >= 0 and str(code) in success
    rules = {
        "no": False,
        "always": True,
        "on-success": clean,
        "on-failure": not clean,
        "on-abnormal": code < 0,
        "on-abort": code < 0,
    }
    if restart not in rules:
        sys.exit(f"deb-unit: Restart={restart} is not handled")
    return rules[restart], f"Restart={restart}, exit status {code}"


def last(settings, key, default=None):
    values = settings.get(key)
    return values[-1] if values else default


def seconds(value):
    value = value.strip()
    for suffix, factor in (("ms", 0.001), ("min", 60), ("s", 1)):
        if value.endswith(suffix):
            return float(value[: -len(suffix)]) * factor
    return float(value)


def main():
    unit_file, ready_file = sys.argv[1], sys.argv[2]
    s = service_section(unit_file)
    user = last(s, "User", "root")
    group = last(s, "Group", user)
    uid = pwd.getpwnam(user).pw_uid
    gid = grp.getgrnam(group).gr_gid

    state = last(s, "StateDirectory")
    if state:
        path = os.path.join("/var/lib", state)
        mode = int(last(s, "StateDirectoryMode", "0755"), 8)
        os.makedirs(path, exist_ok=True)
        os.chown(path, uid, gid)
        os.chmod(path, mode)

    argv = shlex.split(last(s, "ExecStart"))
    if argv[0][:1] in "-@:+!":
        sys.exit(f"deb-unit: ExecStart prefix {argv[0][0]!r} is not handled")
    setpriv = ["setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups"]
    if last(s, "NoNewPrivileges", "no") in ("yes", "true", "1", "on"):
        setpriv.append("--no-new-privs")
    if last(s, "CapabilityBoundingSet") == "" and last(s, "AmbientCapabilities", "") == "":
        setpriv += ["--inh-caps=-all", "--ambient-caps=-all", "--bounding-set=-all"]

    notify_dir = tempfile.mkdtemp(prefix="deb-unit-")
    os.chmod(notify_dir, 0o755)
    notify_path = os.path.join(notify_dir, "notify")
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(notify_path)
    os.chown(notify_path, uid, gid)
    notify.settimeout(0.2)

    env = {
        "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        "LANG": "C.UTF-8",
        "NOTIFY_SOCKET": notify_path,
    }
    umask = int(last(s, "UMask", "0022"), 8)
    nofile = last(s, "LimitNOFILE")

    limit = None
    if nofile:
        # systemd raises the limit; a container may cap it below (no CAP_SYS_RESOURCE).
        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        n = int(nofile)
        if hard != resource.RLIM_INFINITY and n > hard:
            print(f"deb-unit: LimitNOFILE={n}: this machine allows {hard}", flush=True)
            n = hard
        limit = n

    def limits():
        if limit is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))

    stop = {"asked": False}
    signal.signal(signal.SIGTERM, lambda *_: stop.update(asked=True))
    signal.signal(signal.SIGINT, lambda *_: stop.update(asked=True))

    print("deb-unit: starting", " ".join(setpriv + ["--"] + argv), flush=True)
    child = subprocess.Popen(
        setpriv + ["--"] + argv, env=env, cwd="/", umask=umask, preexec_fn=limits
    )
    received = []
    notify_type = last(s, "Type", "simple") == "notify"
    deadline = time.monotonic() + 60
    ready = False
    stop_deadline = None
    while True:
        try:
            msg = notify.recv(4096).decode("utf-8", "replace")
            received.extend(msg.split("\n"))
            if "READY=1" in msg.split("\n") and not ready:
                ready = True
                with open(ready_file, "w") as f:
                    f.write(f"{child.pid}\n")
        except socket.timeout:
            pass
        code = child.poll()
        if code is not None:
            break
        if not notify_type and not ready:
            ready = True
            with open(ready_file, "w") as f:
                f.write(f"{child.pid}\n")
        if not ready and time.monotonic() > deadline:
            print("deb-unit: no READY=1 within 60 s", file=sys.stderr)
            child.kill()
        if stop["asked"] and stop_deadline is None:
            child.send_signal(signal.SIGTERM)
            stop_deadline = time.monotonic() + seconds(last(s, "TimeoutStopSec", "90s"))
        if stop_deadline is not None and time.monotonic() > stop_deadline:
            print("deb-unit: the service did not stop in TimeoutStopSec", file=sys.stderr)
            child.kill()
    # The last notifications (STOPPING=1) may arrive just before the exit.
    try:
        while True:
            received.extend(notify.recv(4096).decode("utf-8", "replace").split("\n"))
    except (socket.timeout, BlockingIOError):
        pass
    notify.close()
    os.unlink(notify_path)
    os.rmdir(notify_dir)
    print("deb-unit: notifications:", " ".join(m for m in received if m), flush=True)
    print(f"deb-unit: exit status {code}", flush=True)
    if not stop["asked"]:
        again, why = would_restart(s, code)
        print(f"deb-unit: systemd would start it again: {'yes' if again else 'no'} ({why})", flush=True)
        sys.exit(code if code >= 0 else 128 - code)
    if not ready:
        sys.exit(1)
    sys.exit(code if code >= 0 else 128 - code)


if __name__ == "__main__":
    main()
