//! PostgreSQL: [`RecentStore`](crate::store::RecentStore).
use super::catalog::channel;
use super::Postgres;
use crate::domain::caller::Scope;
use crate::store::recent::*;
use crate::store::RecentStore;
use crate::store::StoreResult;
use async_trait::async_trait;

#[async_trait]
impl RecentStore for Postgres {
    async fn recent_status(&self, scope: Scope, q: RecentQuery) -> StoreResult<Vec<GroupRecent>> {
        let user = match scope {
            Scope::All => None,
            Scope::User(u) => Some(u),
        };
        let (lo, hi) = q
            .run_type
            .map_or((0i16, 1i16), |t| (i16::from(t.code()), i16::from(t.code())));
        let c = self.client().await?;
        let stmt = c
            .prepare_cached(
                "SELECT g.id, g.name, g.channel,
                        count(*) FILTER (WHERE r.status = 0), count(*) FILTER (WHERE r.status = 1),
                        count(*) FILTER (WHERE r.status >= 2), max(r.run_time)
                   FROM test_case_groups g
                   LEFT JOIN group_cases gc ON gc.group_id = g.id
                   LEFT JOIN test_runs r ON r.test_case_id = gc.test_case_id
                        AND r.run_time >= $2 AND r.run_time < $3
                        AND r.run_type BETWEEN $4 AND $5
                  WHERE $1::BIGINT IS NULL
                     OR g.id IN (SELECT group_id FROM user_groups WHERE user_id = $1)
                  GROUP BY g.id
                  ORDER BY lower(g.name COLLATE \"C\"), g.id",
            )
            .await?;
        c.query(&stmt, &[&user, &q.from_ms, &q.to_ms, &lo, &hi])
            .await?
            .iter()
            .map(|r| {
                Ok(GroupRecent {
                    id: r.get(0),
                    name: r.get(1),
                    channel: channel(r.get(2))?,
                    pass: r.get(3),
                    warn: r.get(4),
                    fail: r.get(5),
                    last_run_ms: r.get(6),
                })
            })
            .collect()
    }
}
