//! The numbered migrations of both backends and the rules of applying them, written once
//! (each backend does the I/O in its `migrate`).
//!
//! - A migration's version is its file's number (`0012_auto_tickets.sql` is 12); gaps are
//!   fine. A database's version is the highest number applied (SQLite's `user_version`,
//!   PostgreSQL's `schema_version`), so an older cxwatch refuses a newer database.
//! - Each migration applied is recorded in `schema_migrations` (version, name, SHA-256 of its
//!   text, when) by the migrate code itself. A recorded migration whose text changed since,
//!   one that is no longer compiled in, or a new file numbered below the database's version
//!   stops start-up: a committed migration never changes; a new one takes the next number.
//! - Databases of a cxwatch before this were versioned by the count of files applied: on
//!   the first start they are given the number of their last file and their files are
//!   recorded, once, without running anything.
//!
//! `store/migrations.sha256` lists every committed migration's checksum; a test fails when
//! a file's text no longer matches it.

use std::path::Path;

use include_dir::Dir;
use sha2::{Digest, Sha256};

use super::{StoreError, StoreResult};

/// The bookkeeping table of applied migrations (SQLite's DDL; PostgreSQL's says BIGINT).
pub(crate) const BOOKKEEPING_TABLE: &str = "schema_migrations";

/// One migration file compiled in.
#[derive(Debug, Clone, Copy)]
pub struct Migration {
    /// The file's number: its version.
    pub version: i64,
    /// The file name (`0012_auto_tickets.sql`).
    pub name: &'static str,
    pub sql: &'static str,
}

impl Migration {
    /// SHA-256 of the file's text, in hex (what `sha256sum` prints).
    pub fn checksum(&self) -> String {
        checksum(self.sql)
    }
}

pub(crate) fn checksum(text: &str) -> String {
    hex::encode(Sha256::digest(text.as_bytes()))
}

/// A migration as `schema_migrations` records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Applied {
    pub version: i64,
    pub name: String,
    pub checksum: String,
}

/// The `.sql` files of a backend's migration directory, in number order. A file not named
/// `NNNN_what.sql`, or two files of one number, is a mistake of the source tree (the unit
/// tests catch it before any release), so it panics.
pub(crate) fn migrations(dir: &'static Dir<'static>) -> Vec<Migration> {
    let mut files: Vec<Migration> = dir
        .files()
        .filter_map(|f| Some((f.path().to_str()?, f.contents_utf8()?)))
        .filter(|(name, _)| name.ends_with(".sql"))
        .map(|(name, sql)| Migration {
            version: number(name).unwrap_or_else(|| {
                panic!("migration {name}: its name begins with its number (0015_what.sql)")
            }),
            name,
            sql,
        })
        .collect();
    files.sort_by_key(|m| m.version);
    for pair in files.windows(2) {
        assert!(
            pair[0].version != pair[1].version,
            "migrations {} and {} have the same number",
            pair[0].name,
            pair[1].name
        );
    }
    files
}

/// The number a migration's name begins with (`0012_auto_tickets.sql` → 12).
fn number(name: &str) -> Option<i64> {
    let (digits, rest) = name.split_once('_')?;
    let what = rest.strip_suffix(".sql")?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) || what.is_empty() {
        return None;
    }
    digits.parse().ok().filter(|n| *n > 0)
}

/// The version this cxwatch knows: the highest number compiled in.
pub(crate) fn latest(all: &[Migration]) -> i64 {
    all.last().map_or(0, |m| m.version)
}

/// The migrations a database versioned by count (`count` files applied, by a cxwatch before
/// numbered versions) has: the first `count` files. None when it counts more files than
/// this cxwatch has (a newer database).
pub(crate) fn counted(all: &[Migration], count: i64) -> Option<&[Migration]> {
    all.get(..usize::try_from(count).ok()?)
}

/// The refusal of a database newer than this cxwatch.
pub(crate) fn too_new(db: &Path, found: i64, all: &[Migration]) -> StoreError {
    StoreError::TooNew {
        path: db.to_path_buf(),
        found,
        known: latest(all),
    }
}

/// Checks what a database recorded against the files compiled in and answers the files to
/// apply, in order. `version` is the database's version (the highest number applied).
pub(crate) fn pending<'a>(
    db: &Path,
    all: &'a [Migration],
    applied: &[Applied],
    version: i64,
) -> StoreResult<Vec<&'a Migration>> {
    if version > latest(all) {
        return Err(too_new(db, version, all));
    }
    for a in applied {
        let Some(file) = all.iter().find(|m| m.version == a.version) else {
            return Err(StoreError::Migration(format!(
                "database {}: migration {} was applied to it but is not in this cxwatch: a \
                 committed migration is never removed or renumbered",
                db.display(),
                a.name
            )));
        };
        let now = file.checksum();
        if now != a.checksum {
            return Err(StoreError::Migration(format!(
                "database {}: migration {} was changed after it was applied to this database \
                 (checksum {now}, recorded {}): a committed migration never changes; add a \
                 new one instead",
                db.display(),
                file.name,
                a.checksum
            )));
        }
    }
    let todo: Vec<&Migration> = all
        .iter()
        .filter(|m| !applied.iter().any(|a| a.version == m.version))
        .collect();
    if let Some(low) = todo.iter().find(|m| m.version <= version) {
        return Err(StoreError::Migration(format!(
            "database {}: migration {} is numbered below the database's version {version}, \
             so it would never run: a new migration takes the next number ({:04})",
            db.display(),
            low.name,
            latest(all) + 1
        )));
    }
    Ok(todo)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every committed migration of both backends, by checksum: a file whose text changed
    /// (or that is missing, renamed or new and not listed) fails here.
    #[test]
    fn committed_migrations_never_change() {
        let listed: Vec<(&str, &str)> = include_str!("migrations.sha256")
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            .map(|l| {
                l.split_once("  ")
                    .unwrap_or_else(|| panic!("migrations.sha256: `{l}` is not `<sha256>  <path>`"))
            })
            .collect();
        let files: Vec<(String, String)> = [
            ("src/store/migrations", super::super::migrations()),
            ("src/store/pg/migrations", super::super::pg::migrations()),
        ]
        .into_iter()
        .flat_map(|(dir, all)| {
            all.into_iter()
                .map(move |m| (format!("{dir}/{}", m.name), m.checksum()))
        })
        .collect();
        let mut problems = Vec::new();
        for (path, sum) in &files {
            match listed.iter().find(|(_, p)| p == path) {
                Some((listed_sum, _)) if listed_sum == sum => {}
                Some((listed_sum, _)) => problems.push(format!(
                    "{path} changed (checksum {sum}, committed {listed_sum}): a committed \
                     migration never changes, since databases already ran it. Restore its \
                     committed text and put the change in a new migration with the next \
                     number, on both backends"
                )),
                None => problems.push(format!(
                    "{path} is not listed in src/store/migrations.sha256: a new migration takes \
                     the next number; add its line with `sha256sum {path} >> \
                     src/store/migrations.sha256`"
                )),
            }
        }
        for (_, path) in &listed {
            if !files.iter().any(|(p, _)| p == path) {
                problems.push(format!(
                    "{path} is listed in src/store/migrations.sha256 but is not compiled in: a \
                     committed migration is never removed or renamed (databases recorded it)"
                ));
            }
        }
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }

    #[test]
    fn numbers_are_versions() {
        assert_eq!(number("0012_auto_tickets.sql"), Some(12));
        assert_eq!(number("12_x.sql"), Some(12));
        assert_eq!(number("0000_x.sql"), None);
        assert_eq!(number("init.sql"), None);
        assert_eq!(number("00a1_x.sql"), None);
        assert_eq!(number("0001_.sql"), None);
        // Both backends' files parse, in number order, with the gaps they have.
        for all in [super::super::migrations(), super::super::pg::migrations()] {
            assert!(all.windows(2).all(|w| w[0].version < w[1].version));
            assert!(!all.iter().any(|m| m.version == 4), "0004 is a gap");
        }
    }

    fn file(version: i64, name: &'static str, sql: &'static str) -> Migration {
        Migration { version, name, sql }
    }

    fn applied(m: &Migration) -> Applied {
        Applied {
            version: m.version,
            name: m.name.to_string(),
            checksum: m.checksum(),
        }
    }

    #[test]
    fn what_is_pending_and_what_is_refused() {
        let db = Path::new("test.db");
        let all = [
            file(1, "0001_a.sql", "CREATE TABLE a (x);"),
            file(2, "0002_b.sql", "CREATE TABLE b (x);"),
            file(5, "0005_c.sql", "CREATE TABLE c (x);"),
        ];
        // Fresh: everything, gaps and all.
        let names = |v: Vec<&Migration>| v.iter().map(|m| m.name).collect::<Vec<_>>();
        assert_eq!(
            names(pending(db, &all, &[], 0).unwrap()),
            ["0001_a.sql", "0002_b.sql", "0005_c.sql"]
        );
        let done: Vec<Applied> = all[..2].iter().map(applied).collect();
        assert_eq!(names(pending(db, &all, &done, 2).unwrap()), ["0005_c.sql"]);
        let every: Vec<Applied> = all.iter().map(applied).collect();
        assert!(pending(db, &all, &every, 5).unwrap().is_empty());

        // Newer than this cxwatch.
        let err = pending(db, &all, &every, 6).unwrap_err();
        assert!(
            matches!(
                err,
                StoreError::TooNew {
                    found: 6,
                    known: 5,
                    ..
                }
            ),
            "{err}"
        );

        // A changed file names itself and both checksums.
        let mut edited = every.clone();
        edited[1].checksum = checksum("CREATE TABLE b (x, y);");
        let err = pending(db, &all, &edited, 5).unwrap_err().to_string();
        assert!(
            err.contains("migration 0002_b.sql was changed after it was applied")
                && err.contains(&all[1].checksum())
                && err.contains(&edited[1].checksum)
                && err.contains("add a new one instead"),
            "{err}"
        );

        // A recorded migration no longer compiled in.
        let mut gone = every.clone();
        gone.push(Applied {
            version: 3,
            name: "0003_gone.sql".into(),
            checksum: checksum("x"),
        });
        let err = pending(db, &all, &gone, 5).unwrap_err().to_string();
        assert!(
            err.contains("0003_gone.sql") && err.contains("never removed"),
            "{err}"
        );

        // A new file numbered below the version would never run.
        let late = [
            all[0],
            all[1],
            file(4, "0004_late.sql", "CREATE TABLE d (x);"),
            all[2],
        ];
        let err = pending(db, &late, &every, 5).unwrap_err().to_string();
        assert!(
            err.contains("0004_late.sql") && err.contains("next number (0006)"),
            "{err}"
        );
    }

    #[test]
    fn a_count_maps_to_the_files_it_counted() {
        let all = [
            file(1, "0001_a.sql", ""),
            file(3, "0003_b.sql", ""),
            file(5, "0005_c.sql", ""),
        ];
        assert_eq!(counted(&all, 0).unwrap().len(), 0);
        assert_eq!(counted(&all, 2).unwrap().last().unwrap().version, 3);
        assert_eq!(counted(&all, 3).unwrap().last().unwrap().version, 5);
        assert!(counted(&all, 4).is_none());
        assert!(counted(&all, -1).is_none());
        // Today's files: SQLite's 12th is 0014, PostgreSQL's 12th is 0013 (0013 is theirs).
        let sqlite = super::super::migrations();
        let pg = super::super::pg::migrations();
        assert_eq!(counted(&sqlite, 11).unwrap().last().unwrap().version, 12);
        assert_eq!(counted(&sqlite, 12).unwrap().last().unwrap().version, 14);
        assert_eq!(counted(&pg, 12).unwrap().last().unwrap().version, 13);
        assert_eq!(counted(&pg, 13).unwrap().last().unwrap().version, 14);
    }
}
