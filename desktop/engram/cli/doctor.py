"""``engram doctor``: is everything in place? Exit status 1 when something required is broken."""

from __future__ import annotations

from engram.core.doctor import run_checks


def register(commands, common) -> None:
    doctor = commands.add_parser("doctor", parents=[common], help="check every part of Engram and say how to fix it")
    doctor.set_defaults(run=_doctor)


def _doctor(args) -> int:
    checks = run_checks(getattr(args, "data_dir", None), database_url=getattr(args, "database_url", None))
    for check in checks:
        mark = "ok  " if check.ok else ("FAIL" if check.required else "warn")
        print(f"[{mark}] {check.name}: {check.detail}")
        if check.fix:
            print(f"       fix: {check.fix}")
    broken = [c for c in checks if c.required and not c.ok]
    print("all good" if not broken else f"{len(broken)} problem(s) found")
    return 1 if broken else 0
