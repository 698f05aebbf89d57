//! The auth classes of protocol.md §1.3, apart from the guard that checks them (`http`), so the
//! response cache (`cache`) can record a route's class without depending on the request layer.

/// Auth classes of protocol.md §1.3.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthClass {
    Public,
    Read,
    Operator,
    Admin,
}

impl AuthClass {
    /// A non-zero code per class (for `http::GuardSeen`).
    pub(crate) fn code(self) -> u8 {
        match self {
            Self::Public => 1,
            Self::Read => 2,
            Self::Operator => 3,
            Self::Admin => 4,
        }
    }

    pub(crate) fn from_code(code: u8) -> Option<Self> {
        match code {
            1 => Some(Self::Public),
            2 => Some(Self::Read),
            3 => Some(Self::Operator),
            4 => Some(Self::Admin),
            _ => None,
        }
    }
}
