//! What a delete would take or break, as the list screens show it before they ask (a group's
//! and a distribution list's dependents).

use poem_openapi::Object;

/// Something that uses what is being deleted, by id and name (a maintenance window's name is
/// its reason, which may be empty).
#[derive(Debug, Object)]
pub struct Dependent {
    pub id: i64,
    pub name: String,
}

/// The store's `(id, name)` pairs as the answer names them.
pub fn named(v: Vec<(i64, String)>) -> Vec<Dependent> {
    v.into_iter()
        .map(|(id, name)| Dependent { id, name })
        .collect()
}
