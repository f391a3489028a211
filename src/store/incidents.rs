//! Incidents (`docs/alerting.md` 'Incidents'; rules in `domain/incident.rs`), for both
//! backends on `store/sql.rs`.
//!
//! The engine of each backend calls [`assign_members`] in its ingest (or backfill)
//! transaction before it queues the batch's notifications (SQLite's through [`assign_in`],
//! once it has inserted the events; PostgreSQL's before it inserts them): each new event
//! joins an incident or starts one there, so the notifications, the list and every instance
//! agree. PostgreSQL's engine holds its advisory lock then; SQLite has one
//! writer. An incident's state is read from its events: acknowledging or muting it acts on
//! each of its open events through the events' own code (`AlertLifeStore::acknowledge_alert`,
//! `MaintenanceStore::mute_alert`), each in its transaction, as a user would one by one.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use async_trait::async_trait;

use super::alert_life::{Ack, AlertLifeStore};
use super::maintenance::MaintenanceStore;
use super::sql::{self, Exec, SqlStore};
use super::{StoreError, StoreResult};
use crate::domain::caller::{Scope, Visibility};
use crate::domain::incident::{self, AlertState, Candidate, Member, Mute, Note, State, Title};
use crate::domain::opstate::MuteTarget;
use crate::domain::page::{Page, PageRequest};

/// Gives each of the new events `events` (their ids, stored already) an incident, in the
/// order they opened: [`assign_members`] with the events as stored, then each event's
/// incident set. Returns what each event's notification says of it.
pub(crate) async fn assign_in(
    c: &impl Exec,
    events: &[i64],
    now_ms: i64,
) -> StoreResult<HashMap<i64, Note>> {
    if events.is_empty() {
        return Ok(HashMap::new());
    }
    let params: Vec<&dyn sql::Param> = events.iter().map(|i| i as &dyn sql::Param).collect();
    let rows = c
        .query(
            &format!(
                "SELECT e.id, e.group_id, tc.ivr_id, e.alert_ms, e.closed_ms
                   FROM alert_events e LEFT JOIN test_cases tc ON tc.id = e.test_case_id
                  WHERE e.id IN ({})",
                sql::placeholders(1, events.len())
            ),
            &params,
        )
        .await?;
    let mut new = Vec::with_capacity(rows.len());
    for r in rows {
        new.push((
            r.col("id")?,
            Member {
                causes: incident::causes(r.col("group_id")?, r.col("ivr_id")?),
                alert_ms: r.col("alert_ms")?,
                closed_ms: r.col("closed_ms")?,
            },
        ));
    }
    let notes = assign_members(c, &new, now_ms).await?;
    // The events' incidents, a statement for many: $1, $3, … the events, $2, $4, … their
    // incidents.
    let pairs: Vec<(i64, i64)> = notes.iter().map(|(e, n)| (*e, n.incident_id)).collect();
    for chunk in pairs.chunks(ROWS_A_STATEMENT) {
        let params: Vec<&dyn sql::Param> = chunk
            .iter()
            .flat_map(|(e, i)| [e as &dyn sql::Param, i as &dyn sql::Param])
            .collect();
        c.execute(
            &format!(
                "WITH v(event_id, incident) AS (VALUES {})
                 UPDATE alert_events SET incident_id = v.incident FROM v
                  WHERE alert_events.id = v.event_id",
                sql::bigint_rows(chunk.len(), 2)
            ),
            &params,
        )
        .await?;
    }
    Ok(notes)
}

/// Gives each new event of `new` (its id and what grouping reads of it) an incident, in the
/// order they opened (then by id): it joins the one [`incident::assign`] picks among the
/// incidents still open or closed within the window, or starts one. Returns what each
/// event's notification says of it; the caller records each event's incident, with the
/// event (as PostgreSQL's engine inserts its events) or after it ([`assign_in`]).
///
/// An incident is read as its tally (migration 0039: how many events, how many open, the
/// last close, its causes), not from its events: a storm's incident holds thousands, and
/// every batch that opens one would read them all. The tally moves here as events join, and
/// in [`closing_in`] as they close.
pub(crate) async fn assign_members(
    c: &impl Exec,
    new: &[(i64, Member)],
    now_ms: i64,
) -> StoreResult<HashMap<i64, Note>> {
    let mut notes = HashMap::new();
    let mut new: Vec<&(i64, Member)> = new.iter().collect();
    new.sort_by_key(|(id, m)| (m.alert_ms, *id));
    let Some((_, oldest)) = new.first() else {
        return Ok(notes);
    };
    let from = oldest.alert_ms - incident::WINDOW_MS;
    // Each candidate is one member standing for all its events: its causes, its first
    // opening, and its last close or none while one is open.
    let mut candidates: Vec<Candidate> = Vec::new();
    let mut stored_events: HashMap<i64, usize> = HashMap::new();
    for r in c
        .query(
            "SELECT i.id, i.first_ms, i.events, i.open_events, i.last_closed_ms, k.kind,
                    k.cause_id
               FROM incidents i JOIN incident_causes k ON k.incident_id = i.id
              WHERE i.id IN (SELECT id FROM incidents WHERE open_events > 0
                             UNION
                             SELECT id FROM incidents WHERE last_closed_ms >= $1)
              ORDER BY i.id, k.kind, k.cause_id",
            &[&from],
        )
        .await?
    {
        let id: i64 = r.col("id")?;
        let cause = match r.col::<i64>("kind")? {
            0 => incident::Cause::Group(r.col("cause_id")?),
            _ => incident::Cause::Entry(r.col("cause_id")?),
        };
        match candidates.last_mut() {
            Some(last) if last.id == id => last.members[0].causes.push(cause),
            _ => {
                let open: i64 = r.col("open_events")?;
                stored_events.insert(id, r.col::<i64>("events")?.max(0) as usize);
                candidates.push(Candidate {
                    id,
                    members: vec![Member {
                        causes: vec![cause],
                        alert_ms: r.col("first_ms")?,
                        closed_ms: if open > 0 {
                            None
                        } else {
                            r.col("last_closed_ms")?
                        },
                    }],
                })
            }
        }
    }
    let mut tallies: BTreeMap<i64, Tally> = BTreeMap::new();
    for (event, m) in new {
        let (id, joined, first_ms) = match incident::assign(&candidates, m) {
            Some(i) => {
                let cand = &mut candidates[i];
                cand.members.push(m.clone());
                (cand.id, true, cand.first_ms())
            }
            None => {
                let id: i64 = c
                    .scalar(
                        "INSERT INTO incidents (first_ms, created_ms, first_event)
                         VALUES ($1, $2, $3) RETURNING id",
                        &[&m.alert_ms, &now_ms, event],
                    )
                    .await?;
                candidates.push(Candidate {
                    id,
                    members: vec![m.clone()],
                });
                (id, false, m.alert_ms)
            }
        };
        let tally = tallies.entry(id).or_default();
        tally.add(m);
        let stored = stored_events.get(&id).copied().unwrap_or(0);
        notes.insert(
            *event,
            Note {
                incident_id: id,
                joined,
                alerts: stored + tally.events as usize,
                first_ms,
            },
        );
    }
    // The backfill opens events out of time order: the first failure may move earlier.
    let moves: Vec<TallyMove> = tallies
        .iter()
        .map(|(id, t)| (*id, t.events, t.open, Some(t.first_ms), t.last_closed_ms))
        .collect();
    move_tallies(c, &moves).await?;
    let causes: Vec<(i64, i64, i64)> = tallies
        .iter()
        .flat_map(|(id, t)| {
            t.causes.iter().map(move |c| match c {
                incident::Cause::Group(g) => (*id, 0, *g),
                incident::Cause::Entry(e) => (*id, 1, *e),
            })
        })
        .collect();
    if !causes.is_empty() {
        let rows: Vec<String> = (0..causes.len())
            .map(|i| format!("(${}, ${}, ${})", 3 * i + 1, 3 * i + 2, 3 * i + 3))
            .collect();
        let params: Vec<&dyn sql::Param> = causes
            .iter()
            .flat_map(|(i, k, id)| [i as &dyn sql::Param, k, id])
            .collect();
        c.execute(
            &format!(
                "INSERT INTO incident_causes (incident_id, kind, cause_id) VALUES {}
                 ON CONFLICT DO NOTHING",
                rows.join(", ")
            ),
            &params,
        )
        .await?;
    }
    Ok(notes)
}

/// What a batch adds to an incident's tally.
#[derive(Default)]
struct Tally {
    events: i64,
    open: i64,
    first_ms: i64,
    last_closed_ms: Option<i64>,
    causes: BTreeSet<incident::Cause>,
}

impl Tally {
    fn add(&mut self, m: &Member) {
        self.first_ms = if self.events == 0 {
            m.alert_ms
        } else {
            self.first_ms.min(m.alert_ms)
        };
        self.events += 1;
        match m.closed_ms {
            None => self.open += 1,
            Some(at) => self.last_closed_ms = self.last_closed_ms.max(Some(at)),
        }
        self.causes.extend(m.causes.iter().copied());
    }
}

/// Moves the tallies of the incidents of events `closes` (`(event, closed_ms)`) that the
/// engine is about to close: called before its close, which leaves an event closed already,
/// so that only the events still open count. An event without an incident yet (opened in
/// this batch) is counted closed as it joins ([`assign_members`]).
pub(crate) async fn closing_in(c: &impl Exec, closes: &[(i64, i64)]) -> StoreResult<()> {
    if closes.is_empty() {
        return Ok(());
    }
    let mut at: HashMap<i64, i64> = HashMap::with_capacity(closes.len());
    for (event, ms) in closes {
        at.entry(*event).or_insert(*ms);
    }
    let ids: Vec<i64> = at.keys().copied().collect();
    let params: Vec<&dyn sql::Param> = ids.iter().map(|i| i as &dyn sql::Param).collect();
    let rows = c
        .query(
            &format!(
                "SELECT id, incident_id FROM alert_events
                  WHERE id IN ({}) AND open = TRUE AND incident_id IS NOT NULL",
                sql::placeholders(1, ids.len())
            ),
            &params,
        )
        .await?;
    let mut by_incident: BTreeMap<i64, (i64, i64)> = BTreeMap::new();
    for r in rows {
        let ms = at.get(&r.col::<i64>("id")?).copied().unwrap_or_default();
        let e = by_incident
            .entry(r.col("incident_id")?)
            .or_insert((0, i64::MIN));
        e.0 += 1;
        e.1 = e.1.max(ms);
    }
    let moves: Vec<TallyMove> = by_incident
        .into_iter()
        .map(|(id, (n, last))| (id, 0, -n, None, Some(last)))
        .collect();
    move_tallies(c, &moves).await
}

/// Rows an `UPDATE … FROM (VALUES …)` takes at most, well within both backends' limits on
/// parameters (SQLite's 32,766; 65,535 on PostgreSQL) at five a row.
const ROWS_A_STATEMENT: usize = 1000;

/// An incident's tally moved: `(incident, events more, open events more (fewer when
/// negative), its first opening no later than, its last close no earlier than)`, the last
/// two `None` to leave them as they are.
type TallyMove = (i64, i64, i64, Option<i64>, Option<i64>);

/// Moves the tallies `moves`, a statement for many incidents rather than one each: a
/// storm's batch moves dozens.
async fn move_tallies(c: &impl Exec, moves: &[TallyMove]) -> StoreResult<()> {
    for chunk in moves.chunks(ROWS_A_STATEMENT) {
        let params: Vec<&dyn sql::Param> = chunk
            .iter()
            .flat_map(|(id, n, open, first, last)| [id as &dyn sql::Param, n, open, first, last])
            .collect();
        c.execute(
            &format!(
                "WITH v(incident, added, opened, first_at, closed_at) AS (VALUES {})
                 UPDATE incidents SET events = events + v.added,
                        open_events = open_events + v.opened,
                        first_ms = CASE WHEN first_ms > v.first_at THEN v.first_at
                                        ELSE first_ms END,
                        last_closed_ms = CASE WHEN last_closed_ms >= v.closed_at
                                              THEN last_closed_ms
                                              ELSE coalesce(v.closed_at, last_closed_ms) END
                   FROM v WHERE incidents.id = v.incident",
                sql::bigint_rows(chunk.len(), 5)
            ),
            &params,
        )
        .await?;
    }
    Ok(())
}

/// One event of an incident.
#[derive(Debug, Clone, PartialEq)]
pub struct IncidentAlert {
    pub id: i64,
    pub setting_name: String,
    pub group_id: i64,
    pub group_name: String,
    pub test_case_id: i64,
    pub test_case_name: String,
    pub alert_ms: i64,
    pub open: bool,
    pub closed_ms: Option<i64>,
    pub ack: Option<Ack>,
}

/// An incident as the console shows it: the events the scope may see, oldest first.
#[derive(Debug, Clone, PartialEq)]
pub struct Incident {
    pub id: i64,
    /// When its first event opened.
    pub first_ms: i64,
    /// What it is named after, and that name.
    pub title: Title,
    pub title_name: String,
    pub state: State,
    pub mute: Option<Mute>,
    pub alerts: Vec<IncidentAlert>,
}

/// Which incidents a list shows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IncidentFilter {
    /// `Some(true)`: open ones (an event open); `Some(false)`: resolved ones.
    pub open: Option<bool>,
}

/// What acknowledging or muting an incident did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Acted {
    /// Open events it acted on.
    pub alerts: usize,
}

#[async_trait]
pub trait IncidentStore {
    /// One page of the incidents with an event in the scope's groups, newest first (by
    /// first failure, then id), their state at `now_ms`.
    async fn list_incidents(
        &self,
        scope: Scope,
        page: PageRequest,
        filter: IncidentFilter,
        now_ms: i64,
    ) -> StoreResult<Page<Incident>>;
    /// Incident `id` with its events in the scope's groups.
    async fn incident(
        &self,
        scope: Scope,
        id: i64,
        now_ms: i64,
    ) -> StoreResult<Visibility<Incident>>;
    /// Acknowledges each open event of incident `id` in the scope's groups as `username`
    /// (an event acknowledged already keeps its first acknowledgement); a resolved incident
    /// is a conflict.
    async fn acknowledge_incident(
        &self,
        scope: Scope,
        id: i64,
        username: String,
        now_ms: i64,
    ) -> StoreResult<Visibility<Acted>>;
    /// Mutes each open event of incident `id` in the scope's groups until `until_ms` as
    /// `by`; a resolved incident is a conflict.
    async fn mute_incident(
        &self,
        scope: Scope,
        id: i64,
        target: MuteTarget,
        until_ms: i64,
        by: String,
        now_ms: i64,
    ) -> StoreResult<Visibility<Acted>>;
}

/// The scope as a condition on `e.group_id`, the user as `$1` (NULL: every group).
const SCOPE: &str = "(CAST($1 AS BIGINT) IS NULL
    OR e.group_id IN (SELECT group_id FROM user_groups WHERE user_id = $1))";

/// Incidents `ids` (in that order) with their events in the scope's groups.
async fn fill(c: &impl Exec, scope: Scope, ids: &[i64], now_ms: i64) -> StoreResult<Vec<Incident>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let user = scope.user();
    let mut params: Vec<&dyn sql::Param> = vec![&user];
    params.extend(ids.iter().map(|i| i as &dyn sql::Param));
    let list = sql::placeholders(2, ids.len());
    let rows = c
        .query(
            &format!(
                "SELECT e.incident_id, e.id, e.setting_name, e.group_id, e.group_name,
                        e.test_case_id, coalesce(tc.name, '') AS test_case_name, e.alert_ms,
                        e.open, e.closed_ms, e.ack_user, e.ack_ms, tc.ivr_id,
                        coalesce(a.name, '') AS ivr_name, i.first_ms
                   FROM alert_events e JOIN incidents i ON i.id = e.incident_id
                   LEFT JOIN test_cases tc ON tc.id = e.test_case_id
                   LEFT JOIN ivr_apps a ON a.id = tc.ivr_id
                  WHERE e.incident_id IN ({list}) AND {SCOPE}
                  ORDER BY e.incident_id, e.alert_ms, e.id"
            ),
            &params,
        )
        .await?;
    type Parts = (
        i64,
        Vec<IncidentAlert>,
        Vec<Vec<incident::Cause>>,
        HashMap<i64, String>,
    );
    let mut by_id: HashMap<i64, Parts> = HashMap::new();
    for r in rows {
        let id: i64 = r.col("incident_id")?;
        let entry: Option<i64> = r.col("ivr_id")?;
        let group_id: i64 = r.col("group_id")?;
        let group_name: String = r.col("group_name")?;
        let ack = match (
            r.col::<Option<String>>("ack_user")?,
            r.col::<Option<i64>>("ack_ms")?,
        ) {
            (Some(by), Some(at_ms)) => Some(Ack { by, at_ms }),
            _ => None,
        };
        let parts = by_id
            .entry(id)
            .or_insert_with(|| (0, Vec::new(), Vec::new(), HashMap::new()));
        parts.0 = r.col("first_ms")?;
        parts.2.push(incident::causes(group_id, entry));
        if let Some(e) = entry {
            parts.3.insert(-e - 1, r.col("ivr_name")?);
        }
        parts.3.insert(group_id, group_name.clone());
        parts.1.push(IncidentAlert {
            id: r.col("id")?,
            setting_name: r.col("setting_name")?,
            group_id,
            group_name,
            test_case_id: r.col("test_case_id")?,
            test_case_name: r.col("test_case_name")?,
            alert_ms: r.col("alert_ms")?,
            open: r.col("open")?,
            closed_ms: r.col("closed_ms")?,
            ack,
        });
    }
    // The mutes made from its events (the once windows that name them).
    let events: Vec<i64> = by_id
        .values()
        .flat_map(|p| p.1.iter().map(|a| a.id))
        .collect();
    let mut mutes_of: HashMap<i64, Vec<(i64, i64, String)>> = HashMap::new();
    if !events.is_empty() {
        let incident_of: HashMap<i64, i64> = by_id
            .iter()
            .flat_map(|(i, p)| p.1.iter().map(move |a| (a.id, *i)))
            .collect();
        let params: Vec<&dyn sql::Param> = events.iter().map(|i| i as &dyn sql::Param).collect();
        for r in c
            .query(
                &format!(
                    "SELECT event_id, start_ms, end_ms, ended_ms, created_by
                       FROM maintenance_windows
                      WHERE weekly = FALSE AND end_ms IS NOT NULL AND event_id IN ({})",
                    sql::placeholders(1, events.len())
                ),
                &params,
            )
            .await?
        {
            let event: i64 = r.col("event_id")?;
            let end: i64 = r.col("end_ms")?;
            let until = r
                .col::<Option<i64>>("ended_ms")?
                .map_or(end, |e| e.min(end));
            if let Some(i) = incident_of.get(&event) {
                mutes_of.entry(*i).or_default().push((
                    r.col("start_ms")?,
                    until,
                    r.col("created_by")?,
                ));
            }
        }
    }
    let mut out = Vec::with_capacity(ids.len());
    for id in ids {
        let Some((first_ms, alerts, causes, names)) = by_id.remove(id) else {
            continue;
        };
        let title = incident::title(&causes);
        let title_name = match title {
            Title::Entry(e) => names.get(&(-e - 1)).cloned(),
            Title::Group(g) => names.get(&g).cloned(),
        }
        .unwrap_or_default();
        let states: Vec<AlertState> = alerts
            .iter()
            .map(|a| AlertState {
                open: a.open,
                closed_ms: a.closed_ms,
                ack: a.ack.as_ref().map(|k| (k.by.clone(), k.at_ms)),
            })
            .collect();
        out.push(Incident {
            id: *id,
            first_ms,
            title,
            title_name,
            state: incident::state_of(&states),
            mute: incident::active_mute(
                mutes_of.get(id).map(Vec::as_slice).unwrap_or_default(),
                now_ms,
            ),
            alerts,
        });
    }
    Ok(out)
}

/// Whether incident `id` exists and has an event in the scope's groups.
async fn seen(c: &impl Exec, scope: Scope, id: i64) -> StoreResult<Visibility<()>> {
    let row = c
        .query_opt(
            &format!(
                "SELECT EXISTS (SELECT 1 FROM alert_events e
                                 WHERE e.incident_id = i.id AND {SCOPE})
                   FROM incidents i WHERE i.id = $2"
            ),
            &[&scope.user(), &id],
        )
        .await?;
    Ok(match row {
        None => Visibility::Missing,
        Some(r) if r.get::<bool>(0)? => Visibility::Visible(()),
        Some(_) => Visibility::Hidden,
    })
}

/// The open events of incident `id` in the scope's groups, for acting on them; a resolved
/// incident is a conflict.
async fn open_events_of<S: SqlStore>(
    store: &S,
    scope: Scope,
    id: i64,
) -> StoreResult<Visibility<Vec<i64>>> {
    sql::read!(store, |c| {
        if let Err(unseen) = seen(c, scope, id).await?.visible() {
            return Ok(unseen);
        }
        let ids: Vec<i64> = c
            .column(
                &format!(
                    "SELECT e.id FROM alert_events e
                      WHERE e.incident_id = $2 AND e.open = TRUE AND {SCOPE} ORDER BY e.id"
                ),
                &[&scope.user(), &id],
            )
            .await?;
        if ids.is_empty() {
            return Err(StoreError::Conflict(format!(
                "Incident {id} is resolved: there is nothing to act on."
            )));
        }
        Ok(Visibility::Visible(ids))
    })
}

#[async_trait]
impl<S: SqlStore> IncidentStore for S {
    async fn list_incidents(
        &self,
        scope: Scope,
        page: PageRequest,
        filter: IncidentFilter,
        now_ms: i64,
    ) -> StoreResult<Page<Incident>> {
        sql::read!(self, |c| {
            let open = match filter.open {
                None => "",
                Some(true) => {
                    " AND EXISTS (SELECT 1 FROM alert_events o WHERE o.incident_id = i.id AND o.open = TRUE)"
                }
                Some(false) => {
                    " AND NOT EXISTS (SELECT 1 FROM alert_events o WHERE o.incident_id = i.id AND o.open = TRUE)"
                }
            };
            let cond = format!(
                "EXISTS (SELECT 1 FROM alert_events e WHERE e.incident_id = i.id AND {SCOPE}){open}"
            );
            let user = scope.user();
            let total: i64 = c
                .scalar(
                    &format!("SELECT count(*) FROM incidents i WHERE {cond}"),
                    &[&user],
                )
                .await?;
            let ids: Vec<i64> = c
                .column(
                    &format!(
                        "SELECT i.id FROM incidents i WHERE {cond}
                          ORDER BY i.first_ms DESC, i.id DESC LIMIT $2 OFFSET $3"
                    ),
                    &[&user, &i64::from(page.size), &(page.offset() as i64)],
                )
                .await?;
            Ok(Page {
                items: fill(c, scope, &ids, now_ms).await?,
                total: total.max(0) as u64,
            })
        })
    }

    async fn incident(
        &self,
        scope: Scope,
        id: i64,
        now_ms: i64,
    ) -> StoreResult<Visibility<Incident>> {
        sql::read!(self, |c| {
            if let Err(unseen) = seen(c, scope, id).await?.visible() {
                return Ok(unseen);
            }
            Ok(fill(c, scope, &[id], now_ms)
                .await?
                .pop()
                .map_or(Visibility::Missing, Visibility::Visible))
        })
    }

    async fn acknowledge_incident(
        &self,
        scope: Scope,
        id: i64,
        username: String,
        now_ms: i64,
    ) -> StoreResult<Visibility<Acted>> {
        let ids = match open_events_of(self, scope, id).await?.visible() {
            Ok(ids) => ids,
            Err(unseen) => return Ok(unseen),
        };
        let mut acted = Acted::default();
        for e in ids {
            match self
                .acknowledge_alert(scope, e, username.clone(), now_ms)
                .await
            {
                Ok(Visibility::Visible(_)) => acted.alerts += 1,
                // Closed meanwhile: nothing to acknowledge there.
                Ok(_) | Err(StoreError::Conflict(_)) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(Visibility::Visible(acted))
    }

    async fn mute_incident(
        &self,
        scope: Scope,
        id: i64,
        target: MuteTarget,
        until_ms: i64,
        by: String,
        now_ms: i64,
    ) -> StoreResult<Visibility<Acted>> {
        let ids = match open_events_of(self, scope, id).await?.visible() {
            Ok(ids) => ids,
            Err(unseen) => return Ok(unseen),
        };
        let mut acted = Acted::default();
        for e in ids {
            match self
                .mute_alert(scope, e, target, until_ms, by.clone(), now_ms)
                .await
            {
                Ok(Visibility::Visible(_)) => acted.alerts += 1,
                Ok(_) | Err(StoreError::Conflict(_)) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(Visibility::Visible(acted))
    }
}
