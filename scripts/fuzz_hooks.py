"""Schemathesis hooks of scripts/fuzz.sh (loaded through SCHEMATHESIS_HOOKS).

Recordings are uploaded as audio/wav, audio/mpeg or audio/ogg (ingestRecording): bytes,
sent as they are, like application/octet-stream.

The OpenAPI document states every rule of a single value (enums, patterns, formats,
lengths, ranges, required fields, non-empty lists). The rules that tie two values together,
a value to the server's clock or a value to the data, which OpenAPI 3.0 cannot state, map_case
tells the fuzzer by moving a drawn value into place: every other value stays as drawn, and
every check still runs on every operation. before_call applies the same rules to what is
sent, since the stateful phase puts values from earlier answers in place after map_case.

Two values together, or a value and the clock:

- startDate..endDate (groupMetric, groupMos, groupRuns, testCaseRuns, groupsHourly,
  reportTestRuns) and a custom report's timeframeBegin..timeframeEnd: the end not before
  the start, at most 400 days after it; groupRuns's hrSlot is an hour of one date, so
  endDate is startDate when hrSlot is given; a custom report (the default time frame) has
  its begin (the end's date, else today);
- alertHandover's since: in the last 31 days, not in the future;
- muteAlert's and muteIncident's until, a once maintenance window's startTime..endTime:
  after now (the window's start an hour from now, its end an hour later), a mute at most 7
  days ahead;
- the body's id of an update (users, groups, reports, alert settings, distribution lists)
  is the path's;
- a schedule's half-hour ranges (alert settings, weekly maintenance windows) start before
  they end (the two ends in order, a half hour apart when equal); a weekly window has one;
- a report of type 6 has a warning threshold below its failure threshold (drawn ones put in
  order, a missing or zero one set);
- an alert setting's escalation has a list and a delay, or neither (the missing one set);
- a report schedule has its day by its frequency (dayOfWeek for weekly, dayOfMonth for
  monthly: set when missing);
- a contact's info is an address, a number or a URL by its type (createDistribution,
  updateDistribution, testContact's one parameter, testSiteChannel's `to` by the path's
  channel): a drawn value that is none is made one from its letters and digits;
- testContact takes exactly one of its addresses (the first drawn is kept; none drawn: an
  e-mail address); testSiteChannel's `to` may be left out for e-mail only; updateAlert takes
  a comment or a jiraTicket (a blank ticket is moved to the comment, none an empty comment);
  deleteGroups its ids in the query or in the body (neither holding one: the query gets one,
  made from the drawn value); a maintenance window covers a group or a test case at least
  (none drawn: a group); a ticket (createJiraIssue) is for a report or an alert (neither:
  an existing report);
- a ticket's file part (createJiraIssue, updateJiraIssue, updateAutoTicket) is a CSV file:
  before_call names it `.csv` (its drawn bytes are sent as they are: any bytes read as CSV).

A value and the data: a referenced id must exist. The hook reads what exists with the case's
own headers (fuzz.sh's console token and ingest key), on the case's base URL, and puts an
existing id in place of a drawn one: a group's test cases (of its channel), a report's or an
alert setting's group (a MOS report's: a voice group), an alert setting's or a schedule's
distribution lists, a user's or a maintenance window's groups and test cases, an alert
setting's statuses (those of its group's channel). On the empty database, the first case that needs one makes it through the API (a
run of each channel by ingest, a group of each channel, a distribution list, a second user).

The server's own rules of a caller: the fuzzer's own account (FUZZ_CALLER_ID, from fuzz.sh)
is not deleted, demoted or given a new password by the fuzzer (deleteUser refuses your own
account; a new role or password would end the fuzzer's session), so updateUser, deleteUser
and overridePassword take another user's id in place of the caller's.

A new password (createUser, overridePassword) must not be easy to guess (rule `weak`: a
common password, a pattern, the user's names), a reading of the server's that no schema
states: the drawn password gets a random strong prefix (cut to stay within 128 characters).

A recording is not empty (ingestRecording): an empty drawn body becomes one byte.
"""

import copy
import datetime as dt
import json
import os
import re
import secrets
import string
import urllib.error
import urllib.parse
import urllib.request
import zlib

import schemathesis

schemathesis.serializer.alias(["audio/wav", "audio/mpeg", "audio/ogg"], "application/octet-stream")

RANGES = {"groupMetric", "groupMos", "groupRuns", "testCaseRuns", "groupsHourly", "reportTestRuns"}
LONGEST_RANGE_DAYS = 400
PASSWORD_MAX = 128
CHANNELS = ("voice", "web")


def _date(value):
    try:
        return dt.date.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        return None


def _rfc3339(t):
    return t.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _span(start, end):
    """`start`..`end` (dates) in order, at most LONGEST_RANGE_DAYS days."""
    start, end = min(start, end), max(start, end)
    longest = dt.timedelta(days=LONGEST_RANGE_DAYS - 1)
    if end - start > longest:
        end = start + longest
    return start, end


def _in_range(op_id, query):
    start, end = _date(query.get("startDate")), _date(query.get("endDate"))
    if start is None or end is None:
        return
    if op_id == "groupRuns" and query.get("hrSlot") is not None:
        query["endDate"] = query["startDate"]
        return
    start, end = _span(start, end)
    query["startDate"], query["endDate"] = start.isoformat(), end.isoformat()


class Server:
    """The server under test, asked with the headers the case carries."""

    def __init__(self, case):
        schema = case.operation.schema
        self.base = schema.get_base_url().rstrip("/")
        self.headers = dict(schema.config.headers_for(operation=case.operation))

    def call(self, method, path, body=None):
        headers = dict(self.headers)
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        req = urllib.request.Request(self.base + path, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(req, timeout=60) as answer:
                return json.load(answer).get("data")
        except (urllib.error.HTTPError, ValueError):
            return None

    def listed(self, path):
        data = self.call("GET", path)
        return data if isinstance(data, list) else []

    def cases(self, channel):
        """Ids of the test cases of `channel`; one is made by ingest when there is none."""
        for attempt in range(2):
            ids = [
                c["id"]
                for ivr in self.listed("/trs/v1/ivrs")
                if ivr.get("channel") == channel
                for c in ivr.get("testCases", [])
            ]
            if ids or attempt:
                return ids
            n = 900_000 + CHANNELS.index(channel)
            run = {
                "engineRunId": f"fuzz-fixture-{channel}-{secrets.token_hex(4)}",
                "testCase": {
                    "id": n,
                    "name": f"Fuzz fixture ({channel})",
                    "channel": channel,
                    "ivr": {"id": n, "name": f"Fuzz fixture ({channel})"},
                },
                "runTime": _rfc3339(dt.datetime.now(dt.timezone.utc) - dt.timedelta(hours=1)),
                "runDuration": 10,
                "status": "pass",
                "runType": "Schedule",
                "segments": [],
            }
            self.call("POST", "/ingest/v1/runs", {"runs": [run]})
        return []

    def groups(self, channel=None):
        """Ids of the groups (of `channel`); one of each channel is made when there is none."""
        for attempt in range(2):
            found = self.listed("/trs/v1/groups")
            ids = [g["id"] for g in found if channel in (None, g.get("channel"))]
            if ids or attempt:
                return ids
            for ch in CHANNELS if channel is None else (channel,):
                cases = self.cases(ch)
                if cases:
                    body = {
                        "name": f"Fuzz fixture {ch} {secrets.token_hex(4)}",
                        "channel": ch,
                        "testCases": [{"id": cases[0]}],
                    }
                    self.call("POST", "/trs/v1/groups", body)
        return []

    def group_channel(self, group_id):
        for g in self.listed("/trs/v1/groups"):
            if g.get("id") == group_id:
                return g.get("channel")
        return None

    def lists(self):
        """Ids of the distribution lists; one is made when there is none."""
        for attempt in range(2):
            ids = [d["id"] for d in self.listed("/distributions")]
            if ids or attempt:
                return ids
            body = {
                "name": f"Fuzz fixture {secrets.token_hex(4)}",
                "contacts": [{"name": "Operations", "type": 1, "info": "ops@example.com"}],
            }
            self.call("POST", "/distributions", body)
        return []

    def statuses(self, channel):
        """Codes of the failure and warning statuses that support `channel`."""
        wanted = ("voice", "ivr") if channel == "voice" else ("web",)
        return [
            s["code"]
            for s in self.listed("/alerts/allStatus")
            if s.get("statusGroup") in ("TRS_FAIL", "TRS_WARN")
            and any(c.strip() in wanted for c in str(s.get("supportChannel", "")).split(","))
        ]

    def other_user(self, me):
        """The id of a user other than `me`; one is made when there is none."""
        for attempt in range(2):
            ids = [u["id"] for u in self.listed("/users") if u.get("id") != me]
            if ids or attempt:
                return ids[0] if ids else None
            body = {
                "username": f"fuzz-other-{secrets.token_hex(4)}@example.com",
                "firstName": "Other",
                "lastName": "User",
                "roles": ["ROLE_USER"],
                "accessType": "read-only",
                "testCaseGroups": [],
                "password": _strong(""),
            }
            self.call("POST", "/users", body)
        return None


def _hash(value):
    """The same number for the same drawn value, run after run (unlike `hash`)."""
    return zlib.crc32(repr(value).encode())


def _pick(ids, drawn):
    """An existing id for a drawn one: the same drawn value gives the same id."""
    if not ids:
        return drawn
    return ids[_hash(drawn) % len(ids)]


def _strong(drawn):
    """`drawn` after a random prefix no guesser finds (first: the server's estimate may read
    only the start of a long password), within PASSWORD_MAX characters."""
    alphabet = string.ascii_letters + string.digits + "!#%&*+-=?@^_~"
    prefix = "".join(secrets.choice(alphabet) for _ in range(20))
    drawn = drawn if isinstance(drawn, str) else ""
    return prefix + drawn[: PASSWORD_MAX - len(prefix)]


def _word(drawn, fallback):
    """The letters and digits of a drawn value (ASCII), lower case, at most 40."""
    text = drawn if isinstance(drawn, str) else str(drawn or "")
    word = "".join(c for c in text.lower() if c in string.ascii_lowercase + string.digits)[:40]
    return word or fallback


def _digits(drawn):
    text = drawn if isinstance(drawn, str) else str(drawn or "")
    return "".join(c for c in text if c in string.digits)


EMAIL = re.compile(r"^[^@\s]+@[^@\s.]([^@\s]*[^@\s.])?$")
E164 = re.compile(r"^\+[1-9][0-9]{7,14}$")
URL = re.compile(r"^https?://[^/?#@\s]+[^\s]*$")


def _info(kind, drawn):
    """A drawn address, number or URL made valid for the contact type `kind`."""
    text = drawn.strip() if isinstance(drawn, str) else ""
    if kind == "email":
        return text if EMAIL.match(text) and text.isascii() else f"{_word(drawn, 'ops')}@example.com"
    if kind in ("sms", "voice"):
        return text if E164.match(text) else "+1514555" + (_digits(drawn) + "0100")[:4]
    return (
        text
        if URL.match(text) and text.isascii()
        else "https://hooks.example.com/" + urllib.parse.quote(_word(drawn, "hook"))
    )


CONTACT_KINDS = {1: "email", 2: "sms", 4: "voice"}  # the others are webhooks
TEST_CONTACT = ("email", "sms", "voice", "webhook", "teams", "slack", "mattermost")


HALF_HOUR = re.compile(r"^([0-9]{2}):(00|30)$")


def _slot(time):
    """The half hour a `HH:MM` time starts (0 to 48), None for another text."""
    m = HALF_HOUR.match(time) if isinstance(time, str) else None
    return int(m.group(1)) * 2 + int(m.group(2)) // 30 if m else None


def _time(slot):
    return f"{slot // 2:02}:{slot % 2 * 30:02}"


def _in_order(slots):
    """Half-hour ranges that start before they end."""
    for s in slots if isinstance(slots, list) else []:
        if not isinstance(s, dict):
            continue
        a, b = _slot(s.get("startTimeSlot")), _slot(s.get("endTimeSlot"))
        if a is None or b is None:
            continue
        b = b or 48
        lo, hi = min(a, b), max(a, b)
        if lo == hi:
            lo, hi = (lo, lo + 1) if lo < 48 else (47, 48)
        s["startTimeSlot"], s["endTimeSlot"] = _time(lo), _time(hi)


def _path_id(case, name="id"):
    value = (case.path_parameters or {}).get(name)
    if isinstance(value, str) and re.fullmatch(r"-?[0-9]+", value):
        return int(value)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _items(value):
    """A drawn list, or none when something else was drawn."""
    return value if isinstance(value, list) else []


def _same_id(case):
    """The body's id of an update is the path's."""
    if isinstance(case.body, dict) and case.body.get("id") is not None:
        path = _path_id(case)
        if path is not None:
            case.body["id"] = path


def _not_me(case, server):
    """The path's user id, when it is the caller's own, becomes another user's."""
    me = os.environ.get("FUZZ_CALLER_ID")
    if me is None or _path_id(case) != int(me):
        return
    other = server.other_user(int(me))
    if other is not None:
        case.path_parameters["id"] = other


def _user(case, server):
    body = case.body
    if not isinstance(body, dict):
        return
    groups = _items(body.get("testCaseGroups"))
    if groups:
        ids = server.groups()
        for g in groups:
            if isinstance(g, dict):
                g["id"] = _pick(ids, g.get("id"))


def _group(case, server):
    body = case.body
    if not isinstance(body, dict) or body.get("channel") not in CHANNELS:
        return
    cases = server.cases(body["channel"])
    for c in _items(body.get("testCases")):
        if isinstance(c, dict):
            c["id"] = _pick(cases, c.get("id"))


def _report(case, server):
    body = case.body
    if not isinstance(body, dict):
        return
    if body.get("testCaseGroupID") is not None:
        # A MOS report (type 7) is of a voice group.
        channel = "voice" if body.get("reportTypeID") == 7 else None
        body["testCaseGroupID"] = _pick(server.groups(channel), body["testCaseGroupID"])
    if body.get("timeframeName") in (None, "", "Custom"):
        begin, end = _date(body.get("timeframeBegin")), _date(body.get("timeframeEnd"))
        if begin is None:
            begin = end or dt.date.today()
        if end is not None:
            begin, end = _span(begin, end)
            body["timeframeEnd"] = end.isoformat()
        body["timeframeBegin"] = begin.isoformat()
    if body.get("reportTypeID") == 6:
        warn, fail = body.get("latencyWarn") or 0, body.get("latencyFail") or 0
        warn, fail = min(warn, fail), max(warn, fail)
        if fail == 0:
            fail = 3000
        if warn == 0 or warn == fail:
            warn = max(1, fail // 2) if fail > 1 else 1
            fail = max(fail, warn + 1)
        body["latencyWarn"], body["latencyFail"] = warn, fail


def _alert_setting(case, server):
    body = case.body
    if not isinstance(body, dict):
        return
    if body.get("testCaseGroupId") is not None:
        body["testCaseGroupId"] = _pick(server.groups(), body["testCaseGroupId"])
    lists = server.lists()
    if body.get("distributionId") is not None:
        body["distributionId"] = _pick(lists, body["distributionId"])
    escalation, delay = body.get("escalationDistributionId"), body.get("escalationDelayMin")
    if escalation is not None or delay is not None:
        body["escalationDistributionId"] = _pick(lists, escalation)
        if delay is None:
            body["escalationDelayMin"] = 1 + _hash(escalation) % 10080
    channel = server.group_channel(body.get("testCaseGroupId"))
    codes = server.statuses(channel) if channel else []
    if isinstance(body.get("alertStatus"), list) and codes:
        body["alertStatus"] = [_pick(codes, c) for c in body["alertStatus"]]
    _in_order(body.get("schedule"))


def _distribution(case):
    body = case.body
    if not isinstance(body, dict):
        return
    for c in _items(body.get("contacts")):
        if isinstance(c, dict) and isinstance(c.get("type"), int):
            c["info"] = _info(CONTACT_KINDS.get(c["type"], "webhook"), c.get("info"))


def _schedule(case, server):
    body = case.body
    if not isinstance(body, dict):
        return
    if body.get("distributionID") is not None:
        body["distributionID"] = _pick(server.lists(), body["distributionID"])
    if body.get("frequency") == "weekly" and body.get("dayOfWeek") is None:
        body["dayOfWeek"] = 1 + _hash(body.get("time")) % 7
    if body.get("frequency") == "monthly" and body.get("dayOfMonth") is None:
        body["dayOfMonth"] = 1 + _hash(body.get("time")) % 31


def _window(case, server, now):
    body = case.body
    if not isinstance(body, dict):
        return
    groups, cases = _items(body.get("testCaseGroups")), _items(body.get("testCases"))
    if not groups and not cases:
        groups = body["testCaseGroups"] = [{"id": None}]
    if groups:
        ids = server.groups()
        for g in groups:
            if isinstance(g, dict):
                g["id"] = _pick(ids, g.get("id"))
    if cases:
        ids = server.cases("voice") + server.cases("web")
        for c in cases:
            if isinstance(c, dict):
                c["id"] = _pick(ids, c.get("id"))
    if body.get("kind") == "once":
        body["startTime"] = _rfc3339(now + dt.timedelta(hours=1))
        body["endTime"] = _rfc3339(now + dt.timedelta(hours=2))
    elif body.get("kind") == "weekly":
        if not body.get("schedule"):
            body["schedule"] = [{"dayOfWeek": 1, "startTimeSlot": "00:00", "endTimeSlot": "00:30"}]
        _in_order(body["schedule"])


def _test_contact(case):
    query = case.query if isinstance(case.query, dict) else {}
    given = [k for k in TEST_CONTACT if isinstance(query.get(k), str) and query[k].strip()]
    keep = given[0] if given else "email"
    for k in TEST_CONTACT:
        if k != keep:
            query.pop(k, None)
    query[keep] = _info(keep, query.get(keep))
    case.query = query


def _site_channel(case):
    channel = (case.path_parameters or {}).get("channel")
    if channel in ("email", "sms", "voice", "webhook") and isinstance(case.body, dict):
        to = case.body.get("to")
        if channel != "email" or (isinstance(to, str) and to.strip()):
            case.body["to"] = _info(channel, to)


def _alert_change(case):
    body = case.body
    if not isinstance(body, dict):
        return
    ticket = body.get("jiraTicket")
    if body.get("comment") is None and not (isinstance(ticket, str) and ticket.strip()):
        body["comment"] = ticket if isinstance(ticket, str) else ""


def _delete_groups(case):
    query = case.query if isinstance(case.query, dict) else {}
    ids = query.get("ids")
    if isinstance(ids, str) and any(p.strip() for p in ids.split(",")):
        return
    body = case.body
    drawn = body.get("ids") if isinstance(body, dict) else body
    if isinstance(drawn, list) and drawn:
        return
    query["ids"] = str(_hash(ids) % 1000 + 1)
    case.query = query


def _ticket(case, server):
    data = case.body.get("data") if isinstance(case.body, dict) else None
    if case.operation.method.upper() == "POST" and isinstance(data, dict):
        if data.get("reportId") is None and data.get("alertId") is None:
            reports = [r["id"] for r in server.listed("/reports")]
            data["reportId"] = _pick(reports, None) if reports else 1


TICKETS = ("createJiraIssue", "updateJiraIssue", "updateAutoTicket")


def _map(case):
    """The rules above, applied to `case` in place (returns it)."""
    op_id = case.operation.schema.get_operation_id(case.operation)
    # The drawn values may be shared with other cases (the coverage phase varies one value
    # of a base case): edit copies.
    for part in ("body", "query", "path_parameters"):
        value = getattr(case, part)
        if isinstance(value, (dict, list)):
            setattr(case, part, copy.deepcopy(value))
    now = dt.datetime.now(dt.timezone.utc)
    if op_id in RANGES and isinstance(case.query, dict):
        _in_range(op_id, case.query)
    elif op_id == "alertHandover" and isinstance(case.query, dict) and "since" in case.query:
        case.query["since"] = _rfc3339(now - dt.timedelta(hours=1))
    elif op_id in ("muteAlert", "muteIncident") and isinstance(case.body, dict):
        if isinstance(case.body.get("until"), str):
            case.body["until"] = _rfc3339(now + dt.timedelta(hours=1))
    elif op_id in ("createUser", "updateUser"):
        if op_id == "updateUser":
            _not_me(case, Server(case))
            _same_id(case)
        elif isinstance(case.body, dict):
            case.body["password"] = _strong(case.body.get("password"))
        _user(case, Server(case))
    elif op_id == "overridePassword":
        _not_me(case, Server(case))
        if isinstance(case.body, dict):
            case.body["newPassword"] = _strong(case.body.get("newPassword"))
    elif op_id == "deleteUser":
        _not_me(case, Server(case))
    elif op_id in ("createGroup", "updateGroup"):
        _same_id(case)
        _group(case, Server(case))
    elif op_id in ("createReport", "updateReport"):
        _same_id(case)
        _report(case, Server(case))
    elif op_id in ("createAlertSetting", "updateAlertSetting"):
        _same_id(case)
        _alert_setting(case, Server(case))
    elif op_id in ("createDistribution", "updateDistribution"):
        _same_id(case)
        _distribution(case)
    elif op_id == "setReportSchedule":
        _schedule(case, Server(case))
    elif op_id in ("createMaintenanceWindow", "updateMaintenanceWindow"):
        _window(case, Server(case), now)
    elif op_id == "testContact":
        _test_contact(case)
    elif op_id == "testSiteChannel":
        _site_channel(case)
    elif op_id == "updateAlert":
        _alert_change(case)
    elif op_id == "deleteGroups":
        _delete_groups(case)
    elif op_id == "ingestRecording" and case.body in (b"", ""):
        case.body = b"\x00"
    elif op_id in TICKETS:
        _ticket(case, Server(case))
    return case


# What a hook cannot read (a number where a text was drawn: a case of negative data) it
# leaves as it was drawn.
UNREADABLE = (TypeError, ValueError, AttributeError, KeyError)


@schemathesis.hook
def map_case(context, case):
    try:
        _map(case)
    except UNREADABLE:
        pass
    return case


@schemathesis.hook
def before_call(context, case, kwargs):
    """The rules again, on what is sent: the stateful phase puts values from earlier answers
    (its links: a path's id, a body's reference) in place after map_case. And a ticket's
    file part is named `.csv` (the drawn bytes are sent as they are)."""
    try:
        _map(case)
    except UNREADABLE:
        pass
    op_id = case.operation.schema.get_operation_id(case.operation)
    if op_id not in TICKETS or not isinstance(case.body, dict) or case.body.get("file") is None:
        return
    files = case.as_transport_kwargs().get("files")
    renamed = []
    for name, part in files or []:
        if name == "file":
            part = ("export.csv", *part[1:])
        renamed.append((name, part))
    kwargs["files"] = renamed
