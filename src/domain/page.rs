//! One page of a list the server pages: what was asked for and what came back.

/// `pageNo` (first page 0) and `pageSize`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageRequest {
    pub no: u32,
    pub size: u32,
}

impl PageRequest {
    pub fn offset(self) -> u64 {
        u64::from(self.no) * u64::from(self.size)
    }
}

/// A sort order on a field of `F`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sort<F> {
    pub field: F,
    pub descending: bool,
}

/// The requested page and how many items there are in all.
#[derive(Debug, Clone, PartialEq)]
pub struct Page<T> {
    pub items: Vec<T>,
    pub total: u64,
}

impl<T> Page<T> {
    pub fn map<U>(self, f: impl FnMut(T) -> U) -> Page<U> {
        Page {
            items: self.items.into_iter().map(f).collect(),
            total: self.total,
        }
    }
}
