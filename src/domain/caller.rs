//! Who is calling and what they may do: roles, access types, the caller behind a console
//! token, the part of the data they see, and the one permission check every handler uses.

/// The role strings of the spec (§3 'Logged-in user').
pub const ROLE_ADMIN: &str = "ROLE_ADMIN";
pub const ROLE_USER: &str = "ROLE_USER";

/// The two roles of the spec: `ROLE_ADMIN` sees everything and manages settings and
/// users; `ROLE_USER` is restricted to the test case groups assigned to them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, poem_openapi::Enum)]
pub enum Role {
    /// `ROLE_ADMIN`: sees everything, manages settings and users.
    #[oai(rename = "ROLE_ADMIN")]
    Admin,
    /// `ROLE_USER`: restricted to the test case groups assigned to them.
    #[oai(rename = "ROLE_USER")]
    User,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Admin => ROLE_ADMIN,
            Role::User => ROLE_USER,
        }
    }

    pub fn parse(s: &str) -> Option<Role> {
        match s {
            ROLE_ADMIN => Some(Role::Admin),
            ROLE_USER => Some(Role::User),
            _ => None,
        }
    }

    /// The role list stored for the user and returned by sign-in.
    pub fn roles(self) -> Vec<String> {
        vec![self.as_str().to_string()]
    }

    /// The role a role list means: a first role `ROLE_USER` (or none) is restricted.
    pub fn of(roles: &[String]) -> Role {
        match roles.first().map(String::as_str) {
            Some(ROLE_ADMIN) => Role::Admin,
            _ => Role::User,
        }
    }
}

/// `read-write` or `read-only`: anyone whose access type is not `read-write` is read-only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, poem_openapi::Enum)]
#[oai(rename_all = "kebab-case")]
pub enum AccessType {
    ReadWrite,
    ReadOnly,
}

impl AccessType {
    pub fn as_str(self) -> &'static str {
        match self {
            AccessType::ReadWrite => "read-write",
            AccessType::ReadOnly => "read-only",
        }
    }

    /// Strict parse of what a client sends.
    pub fn parse(s: &str) -> Option<AccessType> {
        match s {
            "read-write" => Some(AccessType::ReadWrite),
            "read-only" => Some(AccessType::ReadOnly),
            _ => None,
        }
    }

    /// What a stored value means: anything but `read-write` is read-only.
    pub fn of(s: &str) -> AccessType {
        AccessType::parse(s).unwrap_or(AccessType::ReadOnly)
    }
}

/// The signed-in user behind a console token.
#[derive(Debug, Clone)]
pub struct Caller {
    pub user_id: i64,
    pub username: String,
    pub roles: Vec<String>,
    pub access: AccessType,
    /// SHA-256 of the token, to end this session on sign-out.
    pub token_hash: String,
    /// A kiosk session (a wall display): read-only whatever `access` says.
    pub kiosk: bool,
}

/// What part of the test-run data a caller sees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Every group (administrators).
    All,
    /// Only the groups assigned to this user (first role `ROLE_USER`).
    User(i64),
}

impl Scope {
    /// The user of a restricted scope, `None` for all.
    pub fn user(self) -> Option<i64> {
        match self {
            Scope::All => None,
            Scope::User(u) => Some(u),
        }
    }
}

/// What an operation needs of its caller; each handler states one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// Any signed-in caller.
    SignedIn,
    /// An administrator, read-only or read-write.
    Admin,
    /// An administrator with read-write access.
    AdminWrite,
    /// Any caller with read-write access (what they change is further limited to their
    /// scope by the store).
    Write,
    /// That user themself (any role or access), or an administrator.
    SelfOrAdmin(i64),
    /// That user themself (any role or access, outside a kiosk session), or an
    /// administrator with read-write access: what a password change needs, the one change a
    /// read-only account makes to itself.
    SelfOrAdminWrite(i64),
    /// That user themself with read-write access, or an administrator with read-write
    /// access: what a change of a profile (username, names) needs. A read-only account
    /// reads its profile and changes its password, nothing else.
    ProfileWrite(i64),
}

/// The answer to a read-only account that saves its own profile.
pub const PROFILE_READ_ONLY: &str =
    "Your access is read-only: you may change your password, not your username or names.";

/// The answer to a change asked for in a kiosk session.
pub const KIOSK_READ_ONLY: &str =
    "This is a kiosk session: it shows the console and changes nothing. Sign in normally to make changes.";

/// Why a caller was refused: the message a person reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Denied(pub &'static str);

impl Caller {
    pub fn role(&self) -> Role {
        Role::of(&self.roles)
    }

    /// First role ROLE_USER: sees only the groups assigned to them.
    pub fn is_restricted(&self) -> bool {
        self.role() == Role::User
    }

    /// Read-write access, outside a kiosk session.
    pub fn can_write(&self) -> bool {
        self.access == AccessType::ReadWrite && !self.kiosk
    }

    pub fn scope(&self) -> Scope {
        match self.role() {
            Role::Admin => Scope::All,
            Role::User => Scope::User(self.user_id),
        }
    }

    /// The one permission check: `Ok(self)` when the caller has what `need` says.
    pub fn require(&self, need: Need) -> Result<&Caller, Denied> {
        let admin = !self.is_restricted();
        let ok = match need {
            Need::SignedIn => true,
            Need::Admin => admin,
            Need::AdminWrite => admin && self.can_write(),
            Need::Write => self.can_write(),
            Need::SelfOrAdmin(id) => id == self.user_id || admin,
            Need::SelfOrAdminWrite(id) => {
                !self.kiosk && (id == self.user_id || (admin && self.can_write()))
            }
            Need::ProfileWrite(id) => self.can_write() && (id == self.user_id || admin),
        };
        if ok {
            return Ok(self);
        }
        Err(Denied(match need {
            Need::Admin | Need::SelfOrAdmin(_) => "Only administrators may do this.",
            _ if self.kiosk => KIOSK_READ_ONLY,
            Need::ProfileWrite(id) if id == self.user_id => PROFILE_READ_ONLY,
            Need::Write => "Your access is read-only: you may look but not change anything.",
            _ if admin => "Your access is read-only: you may look but not change anything.",
            _ => "Only administrators with read-write access may do this.",
        }))
    }
}

/// The answer of a read that checks existence and the caller's right to see the item at
/// once: a missing item (404) and a hidden one (403) stay distinct.
#[derive(Debug, Clone, PartialEq)]
pub enum Visibility<T> {
    Visible(T),
    /// It exists, outside the caller's scope.
    Hidden,
    Missing,
}

impl<T> Visibility<T> {
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Visibility<U> {
        match self {
            Visibility::Visible(t) => Visibility::Visible(f(t)),
            Visibility::Hidden => Visibility::Hidden,
            Visibility::Missing => Visibility::Missing,
        }
    }

    /// [`Visibility::map`] with a step that may fail (a read that needs the check first):
    /// `f` runs only for a visible item, and its error is the answer's.
    pub fn try_map<U, E>(self, f: impl FnOnce(T) -> Result<U, E>) -> Result<Visibility<U>, E> {
        match self {
            Visibility::Visible(t) => f(t).map(Visibility::Visible),
            Visibility::Hidden => Ok(Visibility::Hidden),
            Visibility::Missing => Ok(Visibility::Missing),
        }
    }

    /// The item when it is visible; else the same answer, hidden or missing, for an answer
    /// of another type, to return at once (where the rest awaits, so [`Visibility::try_map`]
    /// cannot take it): `let x = match v.visible() { Ok(x) => x, Err(no) => return Ok(no) };`
    pub fn visible<U>(self) -> Result<T, Visibility<U>> {
        match self {
            Visibility::Visible(t) => Ok(t),
            Visibility::Hidden => Err(Visibility::Hidden),
            Visibility::Missing => Err(Visibility::Missing),
        }
    }

    /// The first visible of several answers (records sharing a key only through old data):
    /// else hidden when one of them exists, else missing. Reads `answers` only up to the
    /// first visible one.
    pub fn first(answers: impl IntoIterator<Item = Visibility<T>>) -> Visibility<T> {
        let mut seen = Visibility::Missing;
        for v in answers {
            match v {
                Visibility::Visible(t) => return Visibility::Visible(t),
                Visibility::Hidden => seen = Visibility::Hidden,
                Visibility::Missing => {}
            }
        }
        seen
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caller(role: Role, access: AccessType) -> Caller {
        Caller {
            user_id: 7,
            username: "a@b.test".into(),
            roles: role.roles(),
            access,
            token_hash: String::new(),
            kiosk: false,
        }
    }

    #[test]
    fn a_kiosk_session_reads_and_never_writes() {
        for (role, access) in [
            (Role::Admin, AccessType::ReadWrite),
            (Role::User, AccessType::ReadWrite),
        ] {
            let c = Caller {
                kiosk: true,
                ..caller(role, access)
            };
            assert!(c.require(Need::SignedIn).is_ok());
            assert_eq!(c.require(Need::Admin).is_ok(), role == Role::Admin);
            assert!(c.require(Need::SelfOrAdmin(7)).is_ok());
            assert!(!c.can_write());
            for need in [
                Need::AdminWrite,
                Need::SelfOrAdminWrite(7),
                Need::SelfOrAdminWrite(8),
                Need::ProfileWrite(7),
                Need::ProfileWrite(8),
            ] {
                assert_eq!(
                    c.require(need).map(|_| ()),
                    Err(Denied(KIOSK_READ_ONLY)),
                    "{role:?} {need:?}"
                );
            }
        }
    }

    #[test]
    fn needs_follow_role_and_access() {
        use AccessType::*;
        let cases = [
            (Role::Admin, ReadWrite, [true, true, true, true, true]),
            (Role::Admin, ReadOnly, [true, true, false, true, false]),
            (Role::User, ReadWrite, [true, false, false, false, false]),
            (Role::User, ReadOnly, [true, false, false, false, false]),
        ];
        for (role, access, want) in cases {
            let c = caller(role, access);
            let needs = [
                Need::SignedIn,
                Need::Admin,
                Need::AdminWrite,
                Need::SelfOrAdmin(8),
                Need::SelfOrAdminWrite(8),
            ];
            for (need, want) in needs.into_iter().zip(want) {
                assert_eq!(
                    c.require(need).is_ok(),
                    want,
                    "{role:?} {access:?} {need:?}"
                );
            }
            assert!(c.require(Need::SelfOrAdminWrite(7)).is_ok());
        }
    }

    #[test]
    fn a_read_only_account_changes_its_password_not_its_profile() {
        use AccessType::*;
        for role in [Role::Admin, Role::User] {
            let ro = caller(role, ReadOnly);
            assert!(ro.require(Need::SelfOrAdmin(7)).is_ok(), "reads itself");
            assert!(
                ro.require(Need::SelfOrAdminWrite(7)).is_ok(),
                "its password"
            );
            assert_eq!(
                ro.require(Need::ProfileWrite(7)).map(|_| ()),
                Err(Denied(PROFILE_READ_ONLY)),
                "{role:?}"
            );
            assert!(ro.require(Need::ProfileWrite(8)).is_err());
            let rw = caller(role, ReadWrite);
            assert!(rw.require(Need::ProfileWrite(7)).is_ok(), "{role:?}");
            assert_eq!(
                rw.require(Need::ProfileWrite(8)).is_ok(),
                role == Role::Admin
            );
        }
    }

    #[test]
    fn roles_and_access_types_follow_the_spec() {
        assert_eq!(Role::Admin.roles(), vec!["ROLE_ADMIN"]);
        assert_eq!(Role::of(&[]), Role::User);
        assert_eq!(AccessType::of("anything"), AccessType::ReadOnly);
        assert_eq!(AccessType::parse("read-write"), Some(AccessType::ReadWrite));
        assert_eq!(
            caller(Role::User, AccessType::ReadWrite).scope(),
            Scope::User(7)
        );
        assert_eq!(
            caller(Role::Admin, AccessType::ReadOnly).scope(),
            Scope::All
        );
    }

    #[test]
    fn the_first_visible_answer_wins_else_hidden_before_missing() {
        use Visibility::{Hidden, Missing, Visible};
        assert_eq!(Visibility::<i32>::first([]), Missing);
        assert_eq!(Visibility::<i32>::first([Missing, Missing]), Missing);
        assert_eq!(Visibility::<i32>::first([Missing, Hidden, Missing]), Hidden);
        assert_eq!(
            Visibility::first([Hidden, Visible(2), Visible(3)]),
            Visible(2)
        );
        assert_eq!(Visibility::first([Missing, Visible(4), Hidden]), Visible(4));
        // Nothing after the first visible answer is read.
        let mut read = 0;
        let answers = [Visible(1), Hidden, Hidden]
            .into_iter()
            .inspect(|_| read += 1);
        assert_eq!(Visibility::first(answers), Visible(1));
        assert_eq!(read, 1);
    }

    #[test]
    fn a_visibility_step_runs_only_for_a_visible_item() {
        let next = |n: i32| Ok::<_, &str>(n + 1);
        assert_eq!(
            Visibility::Visible(2).try_map(next),
            Ok(Visibility::Visible(3))
        );
        assert_eq!(
            Visibility::Visible(2).try_map(|_| Err::<i32, _>("failed")),
            Err("failed")
        );
        // Hidden and Missing stay apart, and the step does not run.
        let never = |_: i32| -> Result<i32, &str> { panic!("the step ran") };
        assert_eq!(Visibility::Hidden.try_map(never), Ok(Visibility::Hidden));
        assert_eq!(Visibility::Missing.try_map(never), Ok(Visibility::Missing));

        assert_eq!(Visibility::Visible(2).visible::<String>(), Ok(2));
        assert_eq!(
            Visibility::<i32>::Hidden.visible::<String>(),
            Err(Visibility::Hidden)
        );
        assert_eq!(
            Visibility::<i32>::Missing.visible::<String>(),
            Err(Visibility::Missing)
        );
    }
}
