//! One SQL layer for both backends: a store operation of a plain resource (users, sessions,
//! API keys, distribution lists, alert settings, …) is written once, with `$1` placeholders,
//! and runs on SQLite or PostgreSQL.
//!
//! ```ignore
//! async fn user_count(&self) -> StoreResult<i64> {
//!     sql::read!(self, |c| c.scalar("SELECT count(*) FROM users", &[]).await)
//! }
//! async fn set_kiosk(&self, id: i64, allowed: bool) -> StoreResult<()> {
//!     sql::write!(self, |c| {
//!         c.execute("UPDATE users SET kiosk = $2 WHERE id = $1", &[&id, &allowed]).await?;
//!         Ok(())
//!     })
//! }
//! ```
//!
//! `read!` and `write!` compile the body once per backend, with `c` an [`Exec`]: on SQLite
//! a connection of the blocking pool (the body runs there, to its end, without yielding:
//! SQLite's calls never leave the async threads blocked), on PostgreSQL a pooled client (or
//! a transaction, for `write!`). Values cross as [`Value`]s: integers bind to whatever
//! integer, boolean or float type PostgreSQL expects for the parameter, text to text or
//! JSON, so one query's parameters need no casts beyond `CAST($1 AS TEXT) IS NULL` where a
//! parameter's type cannot be inferred. Statements are prepared once per connection on both.
//!
//! SQL that both accept: `$n` placeholders (rewritten to SQLite's `?n`), `RETURNING`,
//! `ON CONFLICT … DO UPDATE/NOTHING`, `TRUE`/`FALSE`, `lower()`, `LIKE … ESCAPE '\'`,
//! `CAST(… AS …)`, `LIMIT/OFFSET`. Where the dialects must differ, [`Exec::postgres`] says
//! which one runs, and the difference sits next to the shared text.

use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use bytes::{BufMut, BytesMut};
use deadpool_postgres::GenericClient;
use tokio_postgres::types::{FromSql, IsNull, ToSql, Type};

use super::{StoreError, StoreResult};

/// One value of a parameter or a column.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Int(i64),
    Real(f64),
    Text(String),
    Bytes(Vec<u8>),
}

/// A query parameter.
pub trait Param: Sync {
    fn value(&self) -> Value;
}

macro_rules! int_param {
    ($($t:ty),*) => {$(
        impl Param for $t {
            fn value(&self) -> Value {
                Value::Int(*self as i64)
            }
        }
    )*};
}
int_param!(i64, i32, i16, u32, u16, u8);

impl Param for bool {
    fn value(&self) -> Value {
        Value::Int(i64::from(*self))
    }
}
impl Param for f64 {
    fn value(&self) -> Value {
        Value::Real(*self)
    }
}
impl Param for str {
    fn value(&self) -> Value {
        Value::Text(self.to_string())
    }
}
impl Param for String {
    fn value(&self) -> Value {
        Value::Text(self.clone())
    }
}
impl Param for [u8] {
    fn value(&self) -> Value {
        Value::Bytes(self.to_vec())
    }
}
impl Param for Vec<u8> {
    fn value(&self) -> Value {
        Value::Bytes(self.clone())
    }
}
impl Param for Value {
    fn value(&self) -> Value {
        self.clone()
    }
}
impl<T: Param + ?Sized> Param for &T {
    fn value(&self) -> Value {
        (**self).value()
    }
}
impl<T: Param> Param for Option<T> {
    fn value(&self) -> Value {
        self.as_ref().map_or(Value::Null, Param::value)
    }
}

/// A column's value read as a Rust type.
pub trait FromValue: Sized {
    fn from_value(v: Value) -> Result<Self, String>;
}

impl FromValue for i64 {
    fn from_value(v: Value) -> Result<Self, String> {
        match v {
            Value::Int(n) => Ok(n),
            other => Err(format!("an integer expected, {other:?} found")),
        }
    }
}
macro_rules! narrow_int {
    ($($t:ty),*) => {$(
        impl FromValue for $t {
            fn from_value(v: Value) -> Result<Self, String> {
                let n = i64::from_value(v)?;
                <$t>::try_from(n).map_err(|_| format!("{n} is out of range"))
            }
        }
    )*};
}
narrow_int!(u8, i32, u32, u64, usize);

impl FromValue for bool {
    fn from_value(v: Value) -> Result<Self, String> {
        Ok(i64::from_value(v)? != 0)
    }
}
impl FromValue for f64 {
    fn from_value(v: Value) -> Result<Self, String> {
        match v {
            Value::Real(f) => Ok(f),
            Value::Int(n) => Ok(n as f64),
            other => Err(format!("a number expected, {other:?} found")),
        }
    }
}
impl FromValue for String {
    fn from_value(v: Value) -> Result<Self, String> {
        match v {
            Value::Text(s) => Ok(s),
            other => Err(format!("text expected, {other:?} found")),
        }
    }
}
impl FromValue for Vec<u8> {
    fn from_value(v: Value) -> Result<Self, String> {
        match v {
            Value::Bytes(b) => Ok(b),
            Value::Text(s) => Ok(s.into_bytes()),
            other => Err(format!("bytes expected, {other:?} found")),
        }
    }
}
impl FromValue for Value {
    fn from_value(v: Value) -> Result<Self, String> {
        Ok(v)
    }
}
impl<T: FromValue> FromValue for Option<T> {
    fn from_value(v: Value) -> Result<Self, String> {
        match v {
            Value::Null => Ok(None),
            v => T::from_value(v).map(Some),
        }
    }
}

/// One row of a result, read from either backend.
#[derive(Debug, Clone)]
pub struct Row {
    names: Arc<[String]>,
    values: Vec<Value>,
}

impl Row {
    /// Column `i` as a `T`.
    pub fn get<T: FromValue>(&self, i: usize) -> StoreResult<T> {
        let v = self.values.get(i).cloned().unwrap_or(Value::Null);
        T::from_value(v).map_err(|e| {
            let name = self.names.get(i).map_or("?", String::as_str);
            StoreError::Invalid(format!("column {i} ({name}): {e}"))
        })
    }

    /// Column `name` as a `T`. Rows are read by their columns' names (aliases for what is
    /// not a plain column: `count(*) AS runs`), so a reader and its column list cannot
    /// drift apart by counting.
    pub fn col<T: FromValue>(&self, name: &str) -> StoreResult<T> {
        match self.names.iter().position(|n| n == name) {
            Some(i) => self.get(i),
            None => Err(StoreError::Invalid(format!("no column {name} in the row"))),
        }
    }

    /// The columns' names and values.
    pub fn columns(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.names.iter().map(String::as_str).zip(&self.values)
    }
}

/// Which backend runs a query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    Sqlite,
    Postgres,
}

/// A connection (or transaction) of either backend, as the body of [`read!`] or
/// [`write!`] sees it.
#[allow(async_fn_in_trait)]
pub trait Exec {
    fn dialect(&self) -> Dialect;

    /// Whether this is PostgreSQL (for the few places the SQL must differ).
    fn postgres(&self) -> bool {
        self.dialect() == Dialect::Postgres
    }

    /// `column` for `ORDER BY` without case, ASCII letters folded and then byte order, the
    /// same on both (SQLite's `NOCASE`; PostgreSQL's `lower` in the "C" collation, whatever
    /// the database's locale).
    fn nocase(&self, column: &str) -> String {
        match self.dialect() {
            Dialect::Sqlite => format!("{column} COLLATE NOCASE"),
            Dialect::Postgres => format!("lower({column} COLLATE \"C\")"),
        }
    }

    /// `column` for a `LIKE` that ignores the case of ASCII letters (only), with a pattern
    /// from [`pattern`]: SQLite's `LIKE` does so itself; PostgreSQL lowers in "C".
    fn fold(&self, column: &str) -> String {
        match self.dialect() {
            Dialect::Sqlite => column.to_string(),
            Dialect::Postgres => format!("lower({column} COLLATE \"C\")"),
        }
    }

    /// SQL that only PostgreSQL runs (a row lock: `FOR UPDATE`, `FOR KEY SHARE`; SQLite's
    /// one writer serialises its transactions already), else nothing.
    fn pg_only<'t>(&self, text: &'t str) -> &'t str {
        match self.dialect() {
            Dialect::Sqlite => "",
            Dialect::Postgres => text,
        }
    }

    /// Every row of `sql`.
    async fn query(&self, sql: &str, params: &[&dyn Param]) -> StoreResult<Vec<Row>>;

    /// Runs `sql`; the number of rows changed.
    async fn execute(&self, sql: &str, params: &[&dyn Param]) -> StoreResult<u64>;

    /// The first row of `sql`, if any.
    async fn query_opt(&self, sql: &str, params: &[&dyn Param]) -> StoreResult<Option<Row>> {
        Ok(self.query(sql, params).await?.into_iter().next())
    }

    /// The first row of `sql`, which must have one.
    async fn query_one(&self, sql: &str, params: &[&dyn Param]) -> StoreResult<Row> {
        self.query_opt(sql, params)
            .await?
            .ok_or_else(|| StoreError::Invalid(format!("no row from: {sql}")))
    }

    /// The first column of the one row of `sql` (a count, a `RETURNING id`).
    async fn scalar<T: FromValue>(&self, sql: &str, params: &[&dyn Param]) -> StoreResult<T> {
        self.query_one(sql, params).await?.get(0)
    }

    /// The first column of the first row, if any.
    async fn scalar_opt<T: FromValue>(
        &self,
        sql: &str,
        params: &[&dyn Param],
    ) -> StoreResult<Option<T>> {
        match self.query_opt(sql, params).await? {
            Some(r) => r.get(0).map(Some),
            None => Ok(None),
        }
    }

    /// The first column of every row.
    async fn column<T: FromValue>(&self, sql: &str, params: &[&dyn Param]) -> StoreResult<Vec<T>> {
        self.query(sql, params)
            .await?
            .iter()
            .map(|r| r.get(0))
            .collect()
    }
}

/// A SQLite connection (inside [`read!`] or [`write!`], on a thread of the blocking pool).
pub struct Lite<'a>(pub &'a rusqlite::Connection);

/// `$n` placeholders as SQLite's `?n` (outside quoted text).
fn sqlite_text(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut quote: Option<char> = None;
    let mut chars = sql.chars().peekable();
    while let Some(ch) = chars.next() {
        match quote {
            Some(q) if ch == q => quote = None,
            Some(_) => {}
            None if ch == '\'' || ch == '"' => quote = Some(ch),
            None if ch == '$' && chars.peek().is_some_and(char::is_ascii_digit) => {
                out.push('?');
                continue;
            }
            None => {}
        }
        out.push(ch);
    }
    out
}

impl rusqlite::ToSql for Value {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        use rusqlite::types::{ToSqlOutput, ValueRef};
        Ok(ToSqlOutput::Borrowed(match self {
            Value::Null => ValueRef::Null,
            Value::Int(n) => ValueRef::Integer(*n),
            Value::Real(f) => ValueRef::Real(*f),
            Value::Text(s) => ValueRef::Text(s.as_bytes()),
            Value::Bytes(b) => ValueRef::Blob(b),
        }))
    }
}

impl Lite<'_> {
    fn statement(&self, sql: &str) -> StoreResult<rusqlite::CachedStatement<'_>> {
        Ok(self.0.prepare_cached(&sqlite_text(sql))?)
    }

    fn bind(params: &[&dyn Param]) -> Vec<Value> {
        params.iter().map(|p| p.value()).collect()
    }
}

impl Exec for Lite<'_> {
    fn dialect(&self) -> Dialect {
        Dialect::Sqlite
    }

    async fn query(&self, sql: &str, params: &[&dyn Param]) -> StoreResult<Vec<Row>> {
        let mut stmt = self.statement(sql)?;
        let names: Arc<[String]> = stmt.column_names().iter().map(|s| s.to_string()).collect();
        let width = names.len();
        let values = Self::bind(params);
        let mut rows = stmt.query(rusqlite::params_from_iter(values.iter()))?;
        let mut out = Vec::new();
        while let Some(r) = rows.next()? {
            let mut values = Vec::with_capacity(width);
            for i in 0..width {
                use rusqlite::types::ValueRef;
                values.push(match r.get_ref(i)? {
                    ValueRef::Null => Value::Null,
                    ValueRef::Integer(n) => Value::Int(n),
                    ValueRef::Real(f) => Value::Real(f),
                    ValueRef::Text(t) => Value::Text(String::from_utf8_lossy(t).into_owned()),
                    ValueRef::Blob(b) => Value::Bytes(b.to_vec()),
                });
            }
            out.push(Row {
                names: names.clone(),
                values,
            });
        }
        Ok(out)
    }

    async fn execute(&self, sql: &str, params: &[&dyn Param]) -> StoreResult<u64> {
        let values = Self::bind(params);
        let n = self
            .statement(sql)?
            .execute(rusqlite::params_from_iter(values.iter()))?;
        Ok(n as u64)
    }
}

/// A PostgreSQL client or transaction.
pub struct Pg<'a, C>(pub &'a C);

impl ToSql for Value {
    fn to_sql(
        &self,
        ty: &Type,
        out: &mut BytesMut,
    ) -> Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        match self {
            Value::Null => Ok(IsNull::Yes),
            Value::Int(n) => match *ty {
                Type::BOOL => (*n != 0).to_sql(ty, out),
                Type::INT2 => i16::try_from(*n)?.to_sql(ty, out),
                Type::INT4 => i32::try_from(*n)?.to_sql(ty, out),
                Type::FLOAT8 => (*n as f64).to_sql(ty, out),
                Type::FLOAT4 => (*n as f32).to_sql(ty, out),
                Type::TEXT | Type::VARCHAR => n.to_string().to_sql(ty, out),
                _ => n.to_sql(ty, out),
            },
            Value::Real(f) => match *ty {
                Type::FLOAT4 => (*f as f32).to_sql(ty, out),
                _ => f.to_sql(ty, out),
            },
            Value::Text(s) => match *ty {
                Type::JSONB => {
                    out.put_u8(1);
                    out.put_slice(s.as_bytes());
                    Ok(IsNull::No)
                }
                Type::JSON => {
                    out.put_slice(s.as_bytes());
                    Ok(IsNull::No)
                }
                _ => s.as_str().to_sql(ty, out),
            },
            Value::Bytes(b) => b.as_slice().to_sql(ty, out),
        }
    }

    fn accepts(_: &Type) -> bool {
        true
    }

    tokio_postgres::types::to_sql_checked!();
}

impl<'a> FromSql<'a> for Value {
    fn from_sql(
        ty: &Type,
        raw: &'a [u8],
    ) -> Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        Ok(match *ty {
            Type::BOOL => Value::Int(i64::from(bool::from_sql(ty, raw)?)),
            Type::INT2 => Value::Int(i16::from_sql(ty, raw)?.into()),
            Type::INT4 => Value::Int(i32::from_sql(ty, raw)?.into()),
            Type::INT8 => Value::Int(i64::from_sql(ty, raw)?),
            Type::FLOAT4 => Value::Real(f32::from_sql(ty, raw)?.into()),
            Type::FLOAT8 => Value::Real(f64::from_sql(ty, raw)?),
            Type::BYTEA => Value::Bytes(raw.to_vec()),
            Type::JSONB => Value::Text(String::from_utf8(raw.get(1..).unwrap_or(&[]).to_vec())?),
            _ => Value::Text(String::from_utf8(raw.to_vec())?),
        })
    }

    fn from_sql_null(_: &Type) -> Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        Ok(Value::Null)
    }

    fn accepts(_: &Type) -> bool {
        true
    }
}

impl<C: GenericClient + Sync> Exec for Pg<'_, C> {
    fn dialect(&self) -> Dialect {
        Dialect::Postgres
    }

    async fn query(&self, sql: &str, params: &[&dyn Param]) -> StoreResult<Vec<Row>> {
        let stmt = self.0.prepare_cached(sql).await?;
        let names: Arc<[String]> = stmt
            .columns()
            .iter()
            .map(|c| c.name().to_string())
            .collect();
        let values: Vec<Value> = params.iter().map(|p| p.value()).collect();
        let refs: Vec<&(dyn ToSql + Sync)> = values.iter().map(|v| v as _).collect();
        let rows = self.0.query(&stmt, &refs).await?;
        rows.iter()
            .map(|r| {
                Ok(Row {
                    names: names.clone(),
                    values: (0..names.len())
                        .map(|i| r.try_get::<_, Value>(i))
                        .collect::<Result<_, _>>()?,
                })
            })
            .collect()
    }

    async fn execute(&self, sql: &str, params: &[&dyn Param]) -> StoreResult<u64> {
        let stmt = self.0.prepare_cached(sql).await?;
        let values: Vec<Value> = params.iter().map(|p| p.value()).collect();
        let refs: Vec<&(dyn ToSql + Sync)> = values.iter().map(|v| v as _).collect();
        Ok(self.0.execute(&stmt, &refs).await?)
    }
}

/// Runs a SQLite body to its end on this thread. Its calls never wait on anything, so it
/// finishes at the first poll; one that would wait is a bug (a body of [`read!`] or
/// [`write!`] awaiting something other than its connection).
pub fn finish<T>(body: impl Future<Output = T>) -> T {
    let mut body = pin!(body);
    match body.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(out) => out,
        Poll::Pending => panic!("a SQLite store body awaited something other than SQLite"),
    }
}

pub use super::{Db, SqlStore};

/// Runs `$body` with `$c` a read connection of the store's backend (see the module's
/// documentation). Values the body uses from outside are moved in: name the ones to clone
/// first in `[name = expr, …]`.
macro_rules! read {
    ($store:expr, $([$($name:ident = $val:expr),* $(,)?],)? |$c:ident| $body:expr) => {{
        $($(let $name = $val;)*)?
        match $crate::store::sql::SqlStore::db($store) {
            $crate::store::sql::Db::Sqlite(s) => {
                s.read(move |conn| {
                    let $c = &$crate::store::sql::Lite(conn);
                    $crate::store::sql::finish(async move { $body })
                })
                .await
            }
            $crate::store::sql::Db::Postgres(p) => {
                let client = p.client().await?;
                let $c = &$crate::store::sql::Pg(&client);
                let out: $crate::store::StoreResult<_> = async { $body }.await;
                out
            }
        }
    }};
}

/// [`read!`] in one write transaction, committed when the body returns `Ok`.
macro_rules! write {
    ($store:expr, $([$($name:ident = $val:expr),* $(,)?],)? |$c:ident| $body:expr) => {{
        $($(let $name = $val;)*)?
        match $crate::store::sql::SqlStore::db($store) {
            $crate::store::sql::Db::Sqlite(s) => {
                s.write(move |tx| {
                    let $c = &$crate::store::sql::Lite(tx);
                    $crate::store::sql::finish(async move { $body })
                })
                .await
            }
            $crate::store::sql::Db::Postgres(p) => {
                let mut client = p.client().await?;
                let tx = client.transaction().await?;
                let out: $crate::store::StoreResult<_> = {
                    let $c = &$crate::store::sql::Pg(&tx);
                    async { $body }.await
                };
                if out.is_ok() {
                    tx.commit().await?;
                }
                out
            }
        }
    }};
}

pub(crate) use {read, write};

/// A `LIKE … ESCAPE '\\'` pattern for text containing `s`, for a column given by
/// [`Exec::fold`].
pub fn pattern(s: &str) -> String {
    super::contains(&s.to_ascii_lowercase())
}

/// The `LIKE` pattern of a list's search ([`pattern`]), `None` when there is nothing to
/// search (no text, or only spaces).
pub fn search(text: Option<&str>) -> Option<String> {
    text.map(str::trim).filter(|s| !s.is_empty()).map(pattern)
}

/// The values of a row to write, each by its column's name: [`Fields::insert`] and
/// [`Fields::update`] write the statement from the names, so no value is bound by counting
/// placeholders, and [`Fields::names`] lets a test hold the write to its resource's column
/// list.
#[derive(Default)]
pub struct Fields<'a> {
    names: Vec<&'static str>,
    values: Vec<&'a dyn Param>,
}

impl<'a> Fields<'a> {
    /// Column `name` takes `value`.
    pub fn set(mut self, name: &'static str, value: &'a dyn Param) -> Self {
        self.names.push(name);
        self.values.push(value);
        self
    }

    /// The columns written, in order.
    pub fn names(&self) -> &[&'static str] {
        &self.names
    }

    /// `INSERT INTO table (…) VALUES (…) RETURNING returning`: the first column of the row.
    pub async fn insert<T: FromValue>(
        &self,
        c: &impl Exec,
        table: &str,
        returning: &str,
    ) -> StoreResult<T> {
        let sql = format!(
            "INSERT INTO {table} ({}) VALUES ({}) RETURNING {returning}",
            self.names.join(", "),
            placeholders(1, self.names.len())
        );
        c.scalar(&sql, &self.values).await
    }

    /// `UPDATE table SET … WHERE key = $n`; the number of rows changed.
    pub async fn update(
        &self,
        c: &impl Exec,
        table: &str,
        key: (&str, &'a dyn Param),
    ) -> StoreResult<u64> {
        let set: Vec<String> = (self.names.iter().enumerate())
            .map(|(i, n)| format!("{n} = ${}", i + 1))
            .collect();
        let sql = format!(
            "UPDATE {table} SET {} WHERE {} = ${}",
            set.join(", "),
            key.0,
            self.names.len() + 1
        );
        let mut values = self.values.clone();
        values.push(key.1);
        c.execute(&sql, &values).await
    }
}

/// `ORDER BY`'s direction.
pub fn dir(descending: bool) -> &'static str {
    if descending {
        "DESC"
    } else {
        "ASC"
    }
}

/// Leases the rows of a durable job queue (`outbox`, `ticket_jobs`: columns `state`,
/// `next_ms`, `lease_ms`, `attempts`) due at `now_ms`, at most `limit`, until
/// `lease_until_ms`, counting the attempt; answers the columns `returning` of each. On
/// PostgreSQL, `SKIP LOCKED` leaves a row another worker is leasing right now to it.
pub async fn lease_due(
    c: &impl Exec,
    table: &str,
    returning: &str,
    now_ms: i64,
    limit: u32,
    lease_until_ms: i64,
) -> StoreResult<Vec<Row>> {
    let sql = format!(
        "WITH due AS (
             SELECT id FROM {table}
              WHERE state = 'queued' AND next_ms <= $1
                AND (lease_ms IS NULL OR lease_ms <= $1)
              ORDER BY next_ms, id LIMIT $2{})
         UPDATE {table} SET lease_ms = $3, attempts = attempts + 1
          WHERE id IN (SELECT id FROM due)
         RETURNING {returning}",
        c.pg_only(" FOR UPDATE SKIP LOCKED")
    );
    c.query(&sql, &[&now_ms, &limit, &lease_until_ms]).await
}

/// `$from, $from+1, …`: `n` placeholders for an `IN (…)` list.
pub fn placeholders(from: usize, n: usize) -> String {
    (from..from + n)
        .map(|i| format!("${i}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `(CAST($1 AS BIGINT), …), (…)`: `rows` rows of `width` placeholders each, for a
/// `WITH v(…) AS (VALUES …)` table that an `UPDATE … FROM v` joins, so that a statement
/// moves many rows by their own values on both backends.
pub fn bigint_rows(rows: usize, width: usize) -> String {
    (0..rows)
        .map(|r| {
            let cells: Vec<String> = (0..width)
                .map(|c| format!("CAST(${} AS BIGINT)", 1 + r * width + c))
                .collect();
            format!("({})", cells.join(", "))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Serialises the transaction with every other one that takes `key` (PostgreSQL's
/// advisory transaction lock: other instances on the database). SQLite has one writer
/// already.
pub async fn lock(c: &impl Exec, key: i64) -> StoreResult<()> {
    if c.postgres() {
        c.execute("SELECT pg_advisory_xact_lock($1)", &[&key])
            .await?;
    }
    Ok(())
}

/// Whether `e` is a unique violation, on either backend.
pub fn is_unique_violation(e: &StoreError) -> bool {
    match e {
        StoreError::Sqlite(rusqlite::Error::SqliteFailure(f, _)) => {
            f.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE
                || f.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_PRIMARYKEY
        }
        StoreError::Postgres(e) => e
            .as_db_error()
            .is_some_and(|db| *db.code() == tokio_postgres::error::SqlState::UNIQUE_VIOLATION),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_become_sqlites_outside_quotes() {
        assert_eq!(
            sqlite_text("SELECT '$1', \"$2\" FROM t WHERE a = $1 AND b = $12"),
            "SELECT '$1', \"$2\" FROM t WHERE a = ?1 AND b = ?12"
        );
    }

    type Got = (i64, bool, Option<String>, Option<String>, f64, String, i64);

    /// One text, run on a backend: parameters of every kind, out of order and repeated.
    async fn roundtrip(store: &impl SqlStore) -> StoreResult<Got> {
        write!(store, |c| {
            let text = "é'\"$1".to_string();
            let none: Option<String> = None;
            let r = c
                .query_one(
                    "SELECT CAST($2 AS BIGINT), CAST($3 AS BOOLEAN), CAST($1 AS TEXT),
                            CAST($4 AS TEXT), CAST($5 AS DOUBLE PRECISION), '$1',
                            CAST($2 AS BIGINT) + CAST($2 AS BIGINT)",
                    &[&text, &7i64, &true, &none, &2.5f64],
                )
                .await?;
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get(5)?,
                r.get(6)?,
            ))
        })
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn one_query_reads_the_same_on_both_backends() {
        let want: Got = (7, true, Some("é'\"$1".into()), None, 2.5, "$1".into(), 14);
        let dir = tempfile::tempdir().unwrap();
        let lite = super::super::Sqlite::open(dir.path(), Default::default()).unwrap();
        assert_eq!(roundtrip(&lite).await.unwrap(), want);
        if let Some(url) = super::super::pg::testdb::fresh().await {
            let pg = super::super::pg::testdb::connect(&url, dir.path()).await;
            assert_eq!(roundtrip(&pg).await.unwrap(), want);
        }
    }
}
