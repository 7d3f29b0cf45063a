//! The recursive-descent parser that builds the syntax tree from the tokens.

use super::lex::{argument_error, lex, malformed, Tok, Token};
use super::tree::{Call, Comparator, ComparatorKind, Expr, Op};
use crate::model::{Error, Result};

/// Parses `text` into its syntax tree: malformed text, an unknown filter name or arguments
/// that do not fit the filter are [`Error::IllegalArgument`] pointing at the byte.
pub(super) fn parse(text: &[u8]) -> Result<Expr> {
    let tokens = lex(text)?;
    let mut parser = Parser {
        text,
        tokens,
        pos: 0,
    };
    if parser.tokens.is_empty() {
        return Err(parser.error_at(0, "the filter is empty"));
    }
    let root = parser.or_expr()?;
    if let Some(t) = parser.tokens.get(parser.pos) {
        return Err(parser.error_at(
            t.at,
            &format!("expected AND, OR or the end, found {}", t.kind.describe()),
        ));
    }
    Ok(root)
}

/// Recursive descent over the tokens: `or := and (OR and)*`, `and := unary (AND unary)*`,
/// `unary := SKIP unary | WHILE unary | '(' or ')' | Name '(' args ')'`.
struct Parser<'a> {
    /// The whole text, for messages.
    text: &'a [u8],
    /// The tokens.
    tokens: Vec<Token>,
    /// The next token.
    pos: usize,
}

/// One argument of a filter call and where it starts.
struct Arg {
    /// The token.
    kind: Tok,
    /// Byte offset.
    at: usize,
}

impl Parser<'_> {
    /// An error at byte `at`.
    fn error_at(&self, at: usize, why: &str) -> Error {
        malformed(self.text, at, why)
    }

    /// The offset of the next token, or the end of the text.
    fn here(&self) -> usize {
        self.tokens.get(self.pos).map_or(self.text.len(), |t| t.at)
    }

    /// Whether the next token is the keyword `kw` (keywords are upper case, as in HBase).
    fn at_keyword(&self, kw: &str) -> bool {
        matches!(self.tokens.get(self.pos), Some(Token { kind: Tok::Word(w), .. }) if w == kw.as_bytes())
    }

    /// `and (OR and)*`: one list for the run, as HBase's `ParseFilter` builds it.
    fn or_expr(&mut self) -> Result<Expr> {
        self.joined("OR", Self::and_expr)
    }

    /// `unary (AND unary)*`.
    fn and_expr(&mut self) -> Result<Expr> {
        self.joined("AND", Self::unary)
    }

    /// `operand (keyword operand)*` as one list (a lone operand is itself): all of them for
    /// `AND`, any for `OR`. A parenthesized operand that is a list stays a list of its own.
    fn joined(&mut self, keyword: &str, operand: fn(&mut Self) -> Result<Expr>) -> Result<Expr> {
        let mut children = vec![operand(self)?];
        while self.at_keyword(keyword) {
            self.pos += 1;
            children.push(operand(self)?);
        }
        Ok(match children.len() {
            1 => children.pop().expect("one operand"),
            _ if keyword == "AND" => Expr::And(children),
            _ => Expr::Or(children),
        })
    }

    /// `SKIP unary | WHILE unary | '(' or ')' | call`.
    fn unary(&mut self) -> Result<Expr> {
        let at = self.here();
        let Some(token) = self.tokens.get(self.pos).cloned() else {
            return Err(self.error_at(at, "a filter is missing at the end"));
        };
        match token.kind {
            Tok::Word(w) if w == b"SKIP" || w == b"WHILE" => {
                self.pos += 1;
                let inner = Box::new(self.unary()?);
                Ok(if w == b"SKIP" {
                    Expr::Skip(inner)
                } else {
                    Expr::While(inner)
                })
            }
            Tok::Open => {
                self.pos += 1;
                let inner = self.or_expr()?;
                match self.tokens.get(self.pos) {
                    Some(Token {
                        kind: Tok::Close, ..
                    }) => {
                        self.pos += 1;
                        Ok(inner)
                    }
                    Some(t) => Err(self.error_at(
                        t.at,
                        &format!("expected ')', AND or OR, found {}", t.kind.describe()),
                    )),
                    None => Err(self.error_at(at, "this '(' is never closed")),
                }
            }
            Tok::Word(name) if name == b"AND" || name == b"OR" => Err(self.error_at(
                at,
                &format!(
                    "{} needs a filter before it",
                    String::from_utf8_lossy(&name)
                ),
            )),
            Tok::Word(name) => {
                self.pos += 1;
                let args = self.arguments(&name, at)?;
                Ok(Expr::Call(self.call(&name, at, args)?))
            }
            other => Err(self.error_at(
                at,
                &format!("expected a filter, found {}", other.describe()),
            )),
        }
    }

    /// `'(' [arg (',' arg)*] ')'` after a filter name.
    fn arguments(&mut self, name: &[u8], name_at: usize) -> Result<Vec<Arg>> {
        let shown = String::from_utf8_lossy(name).into_owned();
        match self.tokens.get(self.pos) {
            Some(Token {
                kind: Tok::Open, ..
            }) => self.pos += 1,
            _ => {
                return Err(self.error_at(
                    name_at,
                    &format!("{shown} must be followed by its arguments in parentheses"),
                ))
            }
        }
        let mut args = Vec::new();
        if let Some(Token {
            kind: Tok::Close, ..
        }) = self.tokens.get(self.pos)
        {
            self.pos += 1;
            return Ok(args);
        }
        loop {
            let Some(t) = self.tokens.get(self.pos).cloned() else {
                return Err(self.error_at(
                    name_at,
                    &format!("the arguments of {shown} are never closed with ')'"),
                ));
            };
            match t.kind {
                Tok::Quoted(_) | Tok::Word(_) => args.push(Arg {
                    kind: t.kind,
                    at: t.at,
                }),
                other => {
                    return Err(self.error_at(
                        t.at,
                        &format!(
                            "expected an argument of {shown}, found {}",
                            other.describe()
                        ),
                    ))
                }
            }
            self.pos += 1;
            match self.tokens.get(self.pos).map(|t| (&t.kind, t.at)) {
                Some((Tok::Comma, _)) => self.pos += 1,
                Some((Tok::Close, _)) => {
                    self.pos += 1;
                    return Ok(args);
                }
                Some((other, at)) => {
                    return Err(self.error_at(
                        at,
                        &format!(
                            "expected ',' or ')' in the arguments of {shown}, found {}",
                            other.describe()
                        ),
                    ))
                }
                None => {
                    return Err(self.error_at(
                        name_at,
                        &format!("the arguments of {shown} are never closed with ')'"),
                    ))
                }
            }
        }
    }

    /// The filter `name` called with `args`, their number and kinds checked.
    fn call(&self, name: &[u8], at: usize, args: Vec<Arg>) -> Result<Call> {
        if let Some(known) = NOT_PARSED.iter().find(|n| n.as_bytes() == name) {
            return Ok(Call::Unparsed(known));
        }
        let Some(&known) = PARSED.iter().find(|n| n.as_bytes() == name) else {
            let shown = String::from_utf8_lossy(name);
            let hint = PARSED
                .iter()
                .chain(NOT_PARSED)
                .find(|n| n.eq_ignore_ascii_case(&shown))
                .map(|n| format!(" (filter names are case-sensitive: {n})"))
                .unwrap_or_default();
            return Err(self.error_at(at, &format!("unknown filter {shown:?}{hint}")));
        };
        let a = Args {
            p: self,
            name: known,
            at,
            args,
        };
        Ok(match known {
            "PrefixFilter" => {
                a.count(&[1])?;
                Call::Prefix(a.bytes(0)?)
            }
            "ColumnPrefixFilter" => {
                a.count(&[1])?;
                Call::ColumnPrefix(a.bytes(0)?)
            }
            "MultipleColumnPrefixFilter" => {
                if a.args.is_empty() {
                    return Err(
                        self.error_at(at, "MultipleColumnPrefixFilter needs at least one prefix")
                    );
                }
                Call::MultipleColumnPrefix(
                    (0..a.args.len())
                        .map(|i| a.bytes(i))
                        .collect::<Result<_>>()?,
                )
            }
            "ColumnRangeFilter" => {
                a.count(&[4])?;
                let bound = |b: Vec<u8>| (!b.is_empty()).then_some(b);
                Call::ColumnRange {
                    min: bound(a.bytes(0)?),
                    min_inclusive: a.boolean(1)?,
                    max: bound(a.bytes(2)?),
                    max_inclusive: a.boolean(3)?,
                }
            }
            "ColumnPaginationFilter" => {
                a.count(&[2])?;
                Call::ColumnPagination {
                    limit: a.non_negative(0, "limit")?,
                    offset: a.non_negative(1, "offset")?,
                }
            }
            "ColumnCountGetFilter" => {
                a.count(&[1])?;
                Call::ColumnCountGet(a.non_negative(0, "limit")?)
            }
            "SingleColumnValueFilter" | "SingleColumnValueExcludeFilter" => {
                a.count(&[4, 6])?;
                let (filter_if_missing, latest_version_only) = if a.args.len() == 6 {
                    (a.boolean(4)?, a.boolean(5)?)
                } else {
                    (false, true)
                };
                let (op, comparator) = a.op_and_comparator(2, true)?;
                Call::SingleColumnValue {
                    family: a.bytes(0)?,
                    qualifier: a.bytes(1)?,
                    op,
                    comparator,
                    filter_if_missing,
                    latest_version_only,
                    exclude: known == "SingleColumnValueExcludeFilter",
                }
            }
            "KeyOnlyFilter" => {
                a.count(&[0, 1])?;
                Call::KeyOnly(!a.args.is_empty() && a.boolean(0)?)
            }
            "FirstKeyOnlyFilter" => {
                a.count(&[0])?;
                Call::FirstKeyOnly
            }
            "PageFilter" => {
                a.count(&[1])?;
                Call::Page(a.non_negative(0, "page size")?)
            }
            "ValueFilter" | "QualifierFilter" | "FamilyFilter" | "RowFilter" => {
                a.count(&[2])?;
                let (op, comparator) = a.op_and_comparator(0, true)?;
                match known {
                    "ValueFilter" => Call::Value(op, comparator),
                    "QualifierFilter" => Call::Qualifier(op, comparator),
                    "FamilyFilter" => Call::Family(op, comparator),
                    _ => Call::Row(op, comparator),
                }
            }
            "InclusiveStopFilter" => {
                a.count(&[1])?;
                Call::InclusiveStop(a.bytes(0)?)
            }
            "TimestampsFilter" => Call::Timestamps(
                (0..a.args.len())
                    .map(|i| a.non_negative(i, "timestamp"))
                    .collect::<Result<_>>()?,
            ),
            "DependentColumnFilter" => {
                a.count(&[2, 3, 5])?;
                Call::DependentColumn {
                    family: a.bytes(0)?,
                    qualifier: a.bytes(1)?,
                    drop_dependent_column: a.args.len() >= 3 && a.boolean(2)?,
                    // HBase does not limit the operators of a regexstring or substring here.
                    value_test: match a.args.len() {
                        5 => Some(a.op_and_comparator(3, false)?),
                        _ => None,
                    },
                }
            }
            _ => unreachable!("every parsed name is built above"),
        })
    }
}

/// Filters parsed into their own [`Call`].
const PARSED: &[&str] = &[
    "PrefixFilter",
    "ColumnPrefixFilter",
    "MultipleColumnPrefixFilter",
    "ColumnRangeFilter",
    "ColumnPaginationFilter",
    "ColumnCountGetFilter",
    "SingleColumnValueFilter",
    "SingleColumnValueExcludeFilter",
    "KeyOnlyFilter",
    "FirstKeyOnlyFilter",
    "PageFilter",
    "ValueFilter",
    "QualifierFilter",
    "FamilyFilter",
    "RowFilter",
    "InclusiveStopFilter",
    "TimestampsFilter",
    "DependentColumnFilter",
];

/// Filters HBase has (some registered with its filter language, some only as classes) that
/// are [`Call::Unparsed`]: named so that a backend can say why it does not run them rather
/// than call them unknown.
const NOT_PARSED: &[&str] = &[
    "FirstKeyValueMatchingQualifiersFilter",
    "ColumnValueFilter",
    "FuzzyRowFilter",
    "MultiRowRangeFilter",
    "RandomRowFilter",
    "WhileMatchFilter",
    "SkipFilter",
];

/// The arguments of one filter call, with typed accessors that explain a mismatch.
struct Args<'a, 'p> {
    /// For error messages.
    p: &'a Parser<'p>,
    /// The filter's name.
    name: &'static str,
    /// Where the call starts.
    at: usize,
    /// The arguments.
    args: Vec<Arg>,
}

impl Args<'_, '_> {
    /// An error about argument `i`.
    fn bad(&self, i: usize, why: &str) -> Error {
        argument_error(self.p.text, self.args[i].at, i + 1, self.name, why)
    }

    /// Requires one of the argument counts `allowed`.
    fn count(&self, allowed: &[usize]) -> Result<()> {
        if allowed.contains(&self.args.len()) {
            return Ok(());
        }
        let want = allowed
            .iter()
            .map(|n| n.to_string())
            .collect::<Vec<_>>()
            .join(" or ");
        Err(self.p.error_at(
            self.at,
            &format!(
                "{} takes {want} arguments, not {}",
                self.name,
                self.args.len()
            ),
        ))
    }

    /// Argument `i` as a quoted literal.
    fn bytes(&self, i: usize) -> Result<Vec<u8>> {
        match &self.args[i].kind {
            Tok::Quoted(b) => Ok(b.clone()),
            other => Err(self.bad(
                i,
                &format!("expected a quoted literal, found {}", other.describe()),
            )),
        }
    }

    /// Argument `i` as a bare word.
    fn word(&self, i: usize, what: &str) -> Result<String> {
        match &self.args[i].kind {
            Tok::Word(w) => Ok(String::from_utf8_lossy(w).into_owned()),
            other => Err(self.bad(i, &format!("expected {what}, found {}", other.describe()))),
        }
    }

    /// Argument `i` as `true` or `false` (any case, as HBase accepts).
    fn boolean(&self, i: usize) -> Result<bool> {
        let w = self.word(i, "true or false")?;
        match w.to_ascii_lowercase().as_str() {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(self.bad(i, &format!("expected true or false, found {w:?}"))),
        }
    }

    /// Argument `i` as an integer that is not negative.
    fn non_negative(&self, i: usize, what: &str) -> Result<u64> {
        let w = self.word(i, &format!("a {what} (an integer)"))?;
        match w.parse::<i64>() {
            Ok(n) if n >= 0 => Ok(n as u64),
            Ok(n) => Err(self.bad(i, &format!("the {what} must not be negative, found {n}"))),
            Err(_) => Err(self.bad(i, &format!("expected a {what} (an integer), found {w:?}"))),
        }
    }

    /// Arguments `i` and `i + 1` as an operator and a `type:value` comparator; `restricted`:
    /// `regexstring` and `substring` only take `=` and `!=` (HBase checks this for the
    /// compare filters and the single-column value filters).
    fn op_and_comparator(&self, i: usize, restricted: bool) -> Result<(Op, Comparator)> {
        let w = self.word(i, "a compare operator (<, <=, =, !=, >=, >)")?;
        let op = match w.as_str() {
            "<" => Op::Less,
            "<=" => Op::LessOrEqual,
            "=" => Op::Equal,
            "!=" => Op::NotEqual,
            ">=" => Op::GreaterOrEqual,
            ">" => Op::Greater,
            _ => {
                return Err(self.bad(
                    i,
                    &format!("expected a compare operator (<, <=, =, !=, >=, >), found {w:?}"),
                ))
            }
        };
        let j = i + 1;
        let text = self.bytes(j)?;
        let Some(colon) = text.iter().position(|&b| b == b':') else {
            return Err(self.bad(
                j,
                "a comparator is 'binary:...', 'binaryprefix:...', 'regexstring:...' or \
                 'substring:...'",
            ));
        };
        let kind = match &text[..colon] {
            b"binary" => ComparatorKind::Binary,
            b"binaryprefix" => ComparatorKind::BinaryPrefix,
            b"regexstring" => ComparatorKind::RegexString,
            b"substring" => ComparatorKind::Substring,
            other => {
                return Err(self.bad(
                    j,
                    &format!(
                        "unknown comparator {:?} (binary, binaryprefix, regexstring, substring)",
                        String::from_utf8_lossy(other)
                    ),
                ))
            }
        };
        if restricted
            && matches!(
                kind,
                ComparatorKind::RegexString | ComparatorKind::Substring
            )
            && !matches!(op, Op::Equal | Op::NotEqual)
        {
            return Err(self.bad(i, "regexstring and substring comparators only take = or !="));
        }
        let comparator = Comparator {
            kind,
            value: text[colon + 1..].to_vec(),
            at: self.args[j].at,
            argument: j + 1,
        };
        Ok((op, comparator))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tree of `text`, which must parse.
    fn tree(text: &str) -> Expr {
        parse(text.as_bytes()).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    /// A call with no comparator, for building expected trees.
    fn prefix(p: &str) -> Expr {
        Expr::Call(Call::Prefix(p.as_bytes().to_vec()))
    }

    #[test]
    fn runs_of_one_operator_are_one_list_and_parentheses_nest() {
        let (a, b, c) = (prefix("a"), prefix("b"), prefix("c"));
        assert_eq!(
            tree("PrefixFilter('a') OR PrefixFilter('b') OR PrefixFilter('c')"),
            Expr::Or(vec![a.clone(), b.clone(), c.clone()])
        );
        assert_eq!(
            tree("(PrefixFilter('a') OR PrefixFilter('b')) OR PrefixFilter('c')"),
            Expr::Or(vec![Expr::Or(vec![a.clone(), b.clone()]), c.clone()])
        );
        assert_eq!(
            tree("PrefixFilter('a') AND PrefixFilter('b') OR SKIP WHILE PrefixFilter('c')"),
            Expr::Or(vec![
                Expr::And(vec![a.clone(), b]),
                Expr::Skip(Box::new(Expr::While(Box::new(c))))
            ])
        );
        assert_eq!(tree("((PrefixFilter('a')))"), a);
    }

    #[test]
    fn column_count_and_dependent_column_filters_parse() {
        assert_eq!(
            tree("ColumnCountGetFilter(3)"),
            Expr::Call(Call::ColumnCountGet(3))
        );
        let Expr::Call(Call::DependentColumn {
            family,
            qualifier,
            drop_dependent_column,
            value_test: None,
        }) = tree("DependentColumnFilter('d', 'x')")
        else {
            panic!("two arguments");
        };
        assert_eq!((&family[..], &qualifier[..]), (&b"d"[..], &b"x"[..]));
        assert!(!drop_dependent_column);
        // Five arguments; HBase lets a regexstring take any operator here.
        let Expr::Call(Call::DependentColumn {
            drop_dependent_column: true,
            value_test: Some((Op::Greater, comparator)),
            ..
        }) = tree("DependentColumnFilter('d', 'x', TRUE, >, 'regexstring:a.')")
        else {
            panic!("five arguments");
        };
        assert_eq!(comparator.kind, ComparatorKind::RegexString);
        assert_eq!((comparator.value, comparator.argument), (b"a.".to_vec(), 5));
        let message = parse(b"DependentColumnFilter('d', 'x', true, >)")
            .unwrap_err()
            .to_string();
        assert!(
            message.contains("takes 2 or 3 or 5 arguments, not 4"),
            "{message}"
        );
    }

    #[test]
    fn filters_named_but_not_parsed_keep_their_name() {
        assert_eq!(
            tree("FuzzyRowFilter('whatever', 1)"),
            Expr::Call(Call::Unparsed("FuzzyRowFilter"))
        );
        let message = parse(b"fuzzyrowfilter()").unwrap_err().to_string();
        assert!(
            message.contains("case-sensitive: FuzzyRowFilter"),
            "{message}"
        );
    }
}
