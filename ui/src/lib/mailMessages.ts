// The words of the scheduled report mail, which the server writes from these catalogs
// (src/domain/messages.rs reads ui/src/locales/{en,fr}/messages.po by message id): defined
// here so that `lingui extract --clean` sees them and keeps them, and translated once for the
// console and the mail. The console itself does not show them. The mail also uses messages
// the console shows: 'Pass', 'Warning', 'Failure', the report types' names and the
// maintenance note ('… left out of these figures.').
//
// Changing a message here changes its id: change the same id in src/report_mail's callers
// (src/domain/report_mail.rs, src/notify/report_chart.rs, src/notify/reports.rs); a server
// test fails on an id missing from either catalog.
import { msg } from "@lingui/core/macro";

export const MAIL_MESSAGES = [
  msg({ message: "cxwatch report: {name} ({from} – {to})" }),
  msg({ message: "Period: {from} to {to} ({zone})" }),
  msg({ message: "Test runs: {runs} (previous period: {previous})" }),
  msg({ message: "{label}: {value}" }),
  msg({ message: "{points} pts" }),
  msg({ message: "Worst test cases" }),
  msg({ message: "Worst hours" }),
  msg({
    message:
      "{name} — {failures, plural, one {# failure} other {# failures}} of {runs, plural, one {# run} other {# runs}} ({rate})",
  }),
  msg({ message: "No failures in this period." }),
  msg({ message: "No runs in this period." }),
  msg({ message: "No data" }),
  msg({ message: "Open the report" }),
  msg({ message: "The report's CSV is attached." }),
  msg({ message: "Daily pass, warning and failure rates" }),
  msg({ message: "Sent by cxwatch on the report's schedule." }),
  msg({ message: "A copy sent now from the console at the request of {user}." }),
  msg({
    message: "{name}: {runs, plural, one {# run} other {# runs}}, pass {pass}, failure {failure}",
  }),
];
