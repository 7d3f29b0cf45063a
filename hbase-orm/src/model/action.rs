//! What a user may do, as HBase's `AccessController` names it: [`Action`] (granted in a
//! `Permission`, lacking in a `Denial`).

/// An action HBase's `AccessController` grants, on a scope.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Action {
    /// Gets and scans.
    Read,
    /// Puts, deletes, increments, appends.
    Write,
    /// Coprocessor endpoints.
    Exec,
    /// Creating, altering and dropping tables (in a namespace, or the cluster's); bulk loads
    /// into a table (HBase 2.6 asks CREATE or ADMIN of them).
    Create,
    /// Admin calls: enabling, disabling, splitting, granting, ...
    Admin,
}

impl Action {
    /// Every action, in HBase's order.
    pub const ALL: [Action; 5] = [
        Action::Read,
        Action::Write,
        Action::Exec,
        Action::Create,
        Action::Admin,
    ];

    /// The name HBase gives it: `READ`, `WRITE`, `EXEC`, `CREATE`, `ADMIN`.
    ///
    /// ```
    /// assert_eq!(hbase_orm::Action::Write.name(), "WRITE");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Action::Read => "READ",
            Action::Write => "WRITE",
            Action::Exec => "EXEC",
            Action::Create => "CREATE",
            Action::Admin => "ADMIN",
        }
    }

    /// The letter of HBase's shell (`grant 'alice', 'RW', 't'`): `R`, `W`, `X`, `C`, `A`.
    ///
    /// ```
    /// assert_eq!(hbase_orm::Action::Exec.code(), 'X');
    /// ```
    pub fn code(self) -> char {
        match self {
            Action::Read => 'R',
            Action::Write => 'W',
            Action::Exec => 'X',
            Action::Create => 'C',
            Action::Admin => 'A',
        }
    }
}
