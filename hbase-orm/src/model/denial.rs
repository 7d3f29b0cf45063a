//! HBase's refusals for permission read from its words: an `AccessDeniedException` of its
//! `AccessController` (a user lacking an action on a scope) or `VisibilityController` (a user
//! who may not manage labels), as the servers and gateways pass its text on. HBase sends no
//! structured fields for them, and words them three ways:
//!
//! - `Insufficient permissions for user 'alice' (global, action=ADMIN)`;
//! - `Insufficient permissions for user 'alice' (table=t, action=READ)` (reads);
//! - `Insufficient permissions (user=alice@EXAMPLE.COM, scope=default:t, family=d:v,
//!   params=[table=default:t,family=d:v],action=WRITE)` (writes, admin calls on a table);
//!
//! and `User 'alice' is not authorized to perform this action.` for labels.

use super::action::Action;

/// The class HBase names a refusal for permission with.
const DENIED: &str = "AccessDeniedException";

/// What HBase said when it refused a call for permission ([`Error::AccessDenied`]), read from
/// its words (it sends no other): each part `None` when it did not name it.
///
/// ```
/// # fn demo(e: hbase_orm::Error) {
/// if let hbase_orm::Error::AccessDenied { denial, .. } = &e {
///     eprintln!("{:?} may not {:?} on {:?}: ask for a grant", denial.user, denial.action, denial.scope);
/// }
/// # }
/// ```
///
/// [`Error::AccessDenied`]: crate::Error::AccessDenied
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Denial {
    /// The user HBase names: short (`alice`) or its full Kerberos name (`alice@EXAMPLE.COM`),
    /// as HBase words the refusal.
    pub user: Option<String>,
    /// The action the user lacks.
    pub action: Option<Action>,
    /// Where: `global`, a namespace, or a table (`ns:table`, `default:t`, or `t` as HBase
    /// words a read's refusal).
    pub scope: Option<String>,
    /// The families or columns concerned (`d`, `d:v`; several joined by `|`).
    pub family: Option<String>,
    /// HBase's own words (the refusal's first line, without its class).
    pub message: String,
}

impl std::fmt::Display for Denial {
    /// What HBase named, then its words: `(user alice, action WRITE, on default:t): ...`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts: Vec<String> = [
            self.user.as_ref().map(|u| format!("user {u}")),
            self.action.map(|a| format!("action {}", a.name())),
            self.scope.as_ref().map(|s| format!("on {s}")),
            self.family.as_ref().map(|fam| format!("family {fam}")),
        ]
        .into_iter()
        .flatten()
        .collect();
        if !parts.is_empty() {
            write!(f, "({}): ", parts.join(", "))?;
        }
        f.write_str(&self.message)
    }
}

/// The refusal `message` tells of, if it names an `AccessDeniedException`.
pub(crate) fn denial(message: &str) -> Option<Denial> {
    // The first line naming the class; after its last naming there (a gateway may wrap the
    // exception in itself: `...AccessDeniedException: ...AccessDeniedException: words`).
    let line = message.lines().find(|l| l.contains(DENIED))?;
    let words = &line[line.rfind(DENIED)? + DENIED.len()..];
    let words = words.trim_start_matches([':', ' ']).trim();
    // A batch's failure goes on with how often and where: `...: 1 time, servers with ...`.
    let words = match words.find("servers with issues") {
        Some(end) => words[..end]
            .rfind(": ")
            .map_or(words, |i| &words[..i])
            .trim(),
        None => words,
    };
    Some(Denial {
        user: quoted_after(words, "user '")
            .or_else(|| quoted_after(words, "User '"))
            .or_else(|| value_of(words, "(user=")),
        action: value_of(words, "action=")
            .and_then(|a| Action::ALL.into_iter().find(|x| x.name() == a)),
        scope: if words.contains("(global") {
            Some("global".into())
        } else {
            value_of(words, "scope=")
                .or_else(|| value_of(words, "table="))
                .map(|s| if s == "GLOBAL" { "global".into() } else { s })
        },
        family: value_of(words, "family="),
        message: words.to_string(),
    })
}

/// The text between `marker` and the next `'`.
fn quoted_after(words: &str, marker: &str) -> Option<String> {
    let start = words.find(marker)? + marker.len();
    let len = words[start..].find('\'')?;
    Some(words[start..start + len].to_string()).filter(|s| !s.is_empty())
}

/// The value after `key` up to the next `,`, `)` or `]`.
fn value_of(words: &str, key: &str) -> Option<String> {
    let start = words.find(key)? + key.len();
    let value: String = words[start..]
        .chars()
        .take_while(|c| !matches!(c, ',' | ')' | ']'))
        .collect();
    Some(value.trim().to_string()).filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn some(s: &str) -> Option<String> {
        Some(s.to_string())
    }

    /// HBase's three wordings, as a region server, the master and a gateway (which wraps the
    /// class in itself and adds a stack trace, or a batch's count) pass them on.
    #[test]
    fn hbase_refusals_name_user_action_and_scope() {
        let d = denial(
            "org.apache.hadoop.hbase.security.AccessDeniedException: Insufficient permissions \
             for user 'alice' (global, action=ADMIN)\n\tat org.apache...",
        )
        .unwrap();
        assert_eq!(
            (d.user, d.action, d.scope, d.family),
            (some("alice"), Some(Action::Admin), some("global"), None)
        );
        assert_eq!(
            d.message,
            "Insufficient permissions for user 'alice' (global, action=ADMIN)"
        );

        let d = denial(
            "org.apache.hadoop.hbase.security.AccessDeniedException: \
             org.apache.hadoop.hbase.security.AccessDeniedException: Insufficient permissions \
             for user 'alice' (table=shop:orders, action=READ)",
        )
        .unwrap();
        assert_eq!(
            (d.user, d.action, d.scope, d.family),
            (some("alice"), Some(Action::Read), some("shop:orders"), None)
        );

        let d = denial(
            "Failed 1 action: org.apache.hadoop.hbase.security.AccessDeniedException: \
             Insufficient permissions (user=alice@EXAMPLE.COM, scope=default:t, family=d:v|d:w, \
             params=[table=default:t,family=d:v|d:w],action=WRITE): 1 time, servers with issues: \
             localhost,16020",
        )
        .unwrap();
        assert_eq!(
            (d.user, d.action, d.scope, d.family),
            (
                some("alice@EXAMPLE.COM"),
                Some(Action::Write),
                some("default:t"),
                some("d:v|d:w")
            )
        );
        assert!(d.message.ends_with("action=WRITE)"), "{}", d.message);

        let d = denial(
            "org.apache.hadoop.hbase.security.AccessDeniedException: User 'bob' is not \
             authorized to perform this action.",
        )
        .unwrap();
        assert_eq!((d.user, d.action, d.scope), (some("bob"), None, None));

        assert_eq!(
            denial("org.apache.hadoop.hbase.TableNotFoundException: t"),
            None
        );
        let d = Denial {
            user: some("alice"),
            action: Some(Action::Write),
            scope: some("default:t"),
            family: None,
            message: "words".into(),
        };
        assert_eq!(
            d.to_string(),
            "(user alice, action WRITE, on default:t): words"
        );
        let bare = Denial {
            message: "words".into(),
            ..Denial::default()
        };
        assert_eq!(bare.to_string(), "words");
    }
}
