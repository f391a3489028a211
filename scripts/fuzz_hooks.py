"""Schemathesis hooks of scripts/fuzz.sh (loaded through SCHEMATHESIS_HOOKS).

Recordings are uploaded as audio/wav, audio/mpeg or audio/ogg (ingestRecording): bytes,
sent as they are, like application/octet-stream.

The OpenAPI document states every rule of a single value (enums, patterns, formats,
lengths, ranges). A few rules tie two values together or a value to the server's clock,
which OpenAPI 3.0 cannot state; map_case tells the fuzzer those, and only those, by moving
a drawn value into place (every other value stays as drawn, and every check still runs):

- startDate..endDate (groupMetric, groupMos, groupRuns, testCaseRuns, groupsHourly,
  reportTestRuns): endDate not before startDate, at most 400 days after it; groupRuns's
  hrSlot is an hour of one date, so endDate is startDate when hrSlot is given;
- alertHandover's since: in the last 31 days, not in the future;
- muteAlert's and muteIncident's until: after now, at most 7 days ahead.
"""

import datetime as dt

import schemathesis

schemathesis.serializer.alias(["audio/wav", "audio/mpeg", "audio/ogg"], "application/octet-stream")

RANGES = {"groupMetric", "groupMos", "groupRuns", "testCaseRuns", "groupsHourly", "reportTestRuns"}
LONGEST_RANGE_DAYS = 400


def _date(value):
    try:
        return dt.date.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        return None


def _rfc3339(t):
    return t.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _in_range(op_id, query):
    start, end = _date(query.get("startDate")), _date(query.get("endDate"))
    if start is None or end is None:
        return
    if op_id == "groupRuns" and query.get("hrSlot") is not None:
        query["endDate"] = query["startDate"]
        return
    start, end = min(start, end), max(start, end)
    longest = dt.timedelta(days=LONGEST_RANGE_DAYS - 1)
    if end - start > longest:
        end = start + longest
    query["startDate"], query["endDate"] = start.isoformat(), end.isoformat()


@schemathesis.hook
def map_case(context, case):
    op_id = case.operation.schema.get_operation_id(case.operation)
    now = dt.datetime.now(dt.timezone.utc)
    if op_id in RANGES and isinstance(case.query, dict):
        _in_range(op_id, case.query)
    elif op_id == "alertHandover" and isinstance(case.query, dict) and "since" in case.query:
        case.query["since"] = _rfc3339(now - dt.timedelta(hours=1))
    elif op_id in ("muteAlert", "muteIncident") and isinstance(case.body, dict):
        if isinstance(case.body.get("until"), str):
            case.body["until"] = _rfc3339(now + dt.timedelta(hours=1))
    return case
