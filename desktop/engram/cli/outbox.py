"""``engram outbox status|retry``: the background work queue (archiving, summaries)."""

from __future__ import annotations

import argparse
import json

from engram.cli import open_engram


def register(commands, common: argparse.ArgumentParser) -> None:
    outbox = commands.add_parser("outbox", parents=[common], help="background work: what is pending or failed")
    sub = outbox.add_subparsers(dest="action", metavar="ACTION", required=True)
    status = sub.add_parser("status", parents=[common])
    status.add_argument("--json", action="store_true")
    status.set_defaults(run=_status)
    retry = sub.add_parser("retry", parents=[common], help="queue failed jobs again and run what is due")
    retry.set_defaults(run=_retry)


def _status(args) -> int:
    with open_engram(args) as engram:
        health = engram.outbox.health()
    if args.json:
        print(json.dumps(health.to_json(), ensure_ascii=False))
    else:
        print(f"pending {health.pending}, retrying {health.retrying}, failed {health.failed}")
        for job in health.errors:
            print(f"  #{job.id} {job.kind} {job.state} after {job.attempts} attempt(s): {job.last_error}")
    return 1 if health.failed else 0


def _retry(args) -> int:
    with open_engram(args) as engram:
        count = engram.outbox.retry_failed()
        engram.outbox.run_due()
        health = engram.outbox.health()
    print(f"queued {count} failed job(s) again; now pending {health.pending}, failed {health.failed}")
    return 1 if health.failed else 0

