//! The tokenizer and the recursive-descent parser that build the expression tree.

use super::*;

// ---------------------------------------------------------------------------------------------
// Tokenizer
// ---------------------------------------------------------------------------------------------

/// A token and the byte offset it starts at.
#[derive(Clone, Debug)]
pub(super) struct Token {
    /// What it is.
    pub(super) kind: Tok,
    /// Byte offset in the text.
    pub(super) at: usize,
}

/// The kinds of token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Tok {
    /// `(`
    Open,
    /// `)`
    Close,
    /// `,`
    Comma,
    /// A quoted literal, its `''` turned into `'`.
    Quoted(Vec<u8>),
    /// Any other run of bytes up to white space, a parenthesis, a comma or a quote: a filter
    /// name, a keyword, an operator, a number, a boolean.
    Word(Vec<u8>),
}

impl Tok {
    /// The token for an error message.
    pub(super) fn describe(&self) -> String {
        match self {
            Tok::Open => "'('".into(),
            Tok::Close => "')'".into(),
            Tok::Comma => "','".into(),
            Tok::Quoted(b) => format!("the quoted literal {:?}", String::from_utf8_lossy(b)),
            Tok::Word(w) => format!("{:?}", String::from_utf8_lossy(w)),
        }
    }
}

/// Splits the text into tokens.
pub(super) fn lex(text: &[u8]) -> Result<Vec<Token>> {
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < text.len() {
        let at = i;
        let kind = match text[i] {
            b if b.is_ascii_whitespace() => {
                i += 1;
                continue;
            }
            b'(' => {
                i += 1;
                Tok::Open
            }
            b')' => {
                i += 1;
                Tok::Close
            }
            b',' => {
                i += 1;
                Tok::Comma
            }
            b'\'' => {
                let mut bytes = Vec::new();
                i += 1;
                loop {
                    match text.get(i) {
                        None => return Err(malformed(text, at, "this quote is never closed")),
                        Some(b'\'') if text.get(i + 1) == Some(&b'\'') => {
                            bytes.push(b'\'');
                            i += 2;
                        }
                        Some(b'\'') => {
                            i += 1;
                            break;
                        }
                        Some(&b) => {
                            bytes.push(b);
                            i += 1;
                        }
                    }
                }
                Tok::Quoted(bytes)
            }
            _ => {
                while i < text.len()
                    && !text[i].is_ascii_whitespace()
                    && !matches!(text[i], b'(' | b')' | b',' | b'\'')
                {
                    i += 1;
                }
                Tok::Word(text[at..i].to_vec())
            }
        };
        tokens.push(Token { kind, at });
    }
    Ok(tokens)
}

/// An [`Error::IllegalArgument`] for `text`, pointing at byte `at`.
pub(super) fn malformed(text: &[u8], at: usize, why: &str) -> Error {
    Error::IllegalArgument {
        message: format!(
            "malformed filter {:?} at byte {at}: {why}",
            String::from_utf8_lossy(text)
        ),
    }
}

// ---------------------------------------------------------------------------------------------
// Parser
// ---------------------------------------------------------------------------------------------

/// Recursive descent over the tokens: `or := and (OR and)*`, `and := unary (AND unary)*`,
/// `unary := SKIP unary | WHILE unary | '(' or ')' | Name '(' args ')'`.
pub(super) struct Parser<'a> {
    /// The whole text, for messages.
    pub(super) text: &'a [u8],
    /// The tokens.
    pub(super) tokens: Vec<Token>,
    /// The next token.
    pub(super) pos: usize,
}

/// One argument of a filter call and where it starts.
pub(super) struct Arg {
    /// The token.
    pub(super) kind: Tok,
    /// Byte offset.
    pub(super) at: usize,
}

impl Parser<'_> {
    /// An error at byte `at`.
    pub(super) fn error_at(&self, at: usize, why: &str) -> Error {
        malformed(self.text, at, why)
    }

    /// The offset of the next token, or the end of the text.
    pub(super) fn here(&self) -> usize {
        self.tokens.get(self.pos).map_or(self.text.len(), |t| t.at)
    }

    /// Whether the next token is the keyword `kw` (keywords are upper case, as in HBase).
    pub(super) fn at_keyword(&self, kw: &str) -> bool {
        matches!(self.tokens.get(self.pos), Some(Token { kind: Tok::Word(w), .. }) if w == kw.as_bytes())
    }

    /// `and (OR and)*`, flattened into one list as HBase does.
    pub(super) fn or_expr(&mut self) -> Result<Node> {
        self.joined("OR", Self::and_expr)
    }

    /// `unary (AND unary)*`.
    pub(super) fn and_expr(&mut self) -> Result<Node> {
        self.joined("AND", Self::unary)
    }

    /// `operand (keyword operand)*` as one list: all of them for `AND`, any for `OR`.
    fn joined(&mut self, keyword: &str, operand: fn(&mut Self) -> Result<Node>) -> Result<Node> {
        let mut children = vec![operand(self)?];
        while self.at_keyword(keyword) {
            self.pos += 1;
            children.push(operand(self)?);
        }
        Ok(list(children, keyword == "AND"))
    }

    /// `SKIP unary | WHILE unary | '(' or ')' | call`.
    pub(super) fn unary(&mut self) -> Result<Node> {
        let at = self.here();
        let Some(token) = self.tokens.get(self.pos).cloned() else {
            return Err(self.error_at(at, "a filter is missing at the end"));
        };
        match token.kind {
            Tok::Word(w) if w == b"SKIP" || w == b"WHILE" => {
                self.pos += 1;
                let inner = Box::new(self.unary()?);
                Ok(if w == b"SKIP" {
                    Node::Skip {
                        inner,
                        failed: false,
                    }
                } else {
                    Node::While { inner, done: false }
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
                let leaf = build(self, &name, at, args)?;
                Ok(Node::Leaf(leaf))
            }
            other => Err(self.error_at(
                at,
                &format!("expected a filter, found {}", other.describe()),
            )),
        }
    }

    /// `'(' [arg (',' arg)*] ')'` after a filter name.
    pub(super) fn arguments(&mut self, name: &[u8], name_at: usize) -> Result<Vec<Arg>> {
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
}

/// A list node of `children`, or the only child itself.
pub(super) fn list(mut children: Vec<Node>, and: bool) -> Node {
    if children.len() == 1 {
        return children.pop().expect("one child");
    }
    let included = vec![false; children.len()];
    if and {
        Node::And { children, included }
    } else {
        Node::Or {
            previous: vec![None; children.len()],
            children,
            included,
        }
    }
}

/// Filters HBase's filter language knows but this module does not model.
pub(super) const NOT_MODELLED: &[(&str, &str)] = &[
    (
        "ColumnCountGetFilter",
        "HBase 2.6 was seen counting a second family's column twice in scans; use \
         ColumnPaginationFilter(n, 0)",
    ),
    (
        "DependentColumnFilter",
        "it is not modelled by the in-memory store",
    ),
    (
        "FirstKeyValueMatchingQualifiersFilter",
        "it is deprecated in HBase and not modelled by the in-memory store",
    ),
    (
        "ColumnValueFilter",
        "it is not modelled by the in-memory store",
    ),
    (
        "FuzzyRowFilter",
        "it is not modelled by the in-memory store",
    ),
    (
        "MultiRowRangeFilter",
        "it is not modelled by the in-memory store",
    ),
    (
        "RandomRowFilter",
        "it is not modelled by the in-memory store",
    ),
    ("WhileMatchFilter", "write `WHILE f` instead"),
    ("SkipFilter", "write `SKIP f` instead"),
];

/// Filter names that are modelled.
pub(super) const MODELLED: &[&str] = &[
    "PrefixFilter",
    "ColumnPrefixFilter",
    "MultipleColumnPrefixFilter",
    "ColumnRangeFilter",
    "ColumnPaginationFilter",
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
];

/// Builds the filter `name` from its arguments, checking their number and kinds.
pub(super) fn build(p: &Parser<'_>, name: &[u8], at: usize, args: Vec<Arg>) -> Result<Leaf> {
    let shown = String::from_utf8_lossy(name).into_owned();
    if let Some((_, why)) = NOT_MODELLED.iter().find(|(n, _)| n.as_bytes() == name) {
        return Err(Error::Unsupported {
            operation: format!("filter {shown}"),
            backend: "memory",
            why: (*why).to_string(),
        });
    }
    if !MODELLED.iter().any(|n| n.as_bytes() == name) {
        let hint = MODELLED
            .iter()
            .find(|n| n.eq_ignore_ascii_case(&shown))
            .map(|n| format!(" (filter names are case-sensitive: {n})"))
            .unwrap_or_default();
        return Err(p.error_at(at, &format!("unknown filter {shown:?}{hint}")));
    }
    let a = Args {
        p,
        name: &shown,
        at,
        args,
    };
    Ok(match name {
        b"PrefixFilter" => {
            a.count(&[1])?;
            Leaf::Prefix(a.bytes(0)?)
        }
        b"ColumnPrefixFilter" => {
            a.count(&[1])?;
            Leaf::ColumnPrefix(a.bytes(0)?)
        }
        b"MultipleColumnPrefixFilter" => {
            if a.args.is_empty() {
                return Err(p.error_at(at, "MultipleColumnPrefixFilter needs at least one prefix"));
            }
            let mut prefixes = (0..a.args.len())
                .map(|i| a.bytes(i))
                .collect::<Result<Vec<_>>>()?;
            prefixes.sort();
            prefixes.dedup();
            Leaf::MultipleColumnPrefix(prefixes)
        }
        b"ColumnRangeFilter" => {
            a.count(&[4])?;
            let bound = |b: Vec<u8>| (!b.is_empty()).then_some(b);
            Leaf::ColumnRange {
                min: bound(a.bytes(0)?),
                min_inclusive: a.boolean(1)?,
                max: bound(a.bytes(2)?),
                max_inclusive: a.boolean(3)?,
            }
        }
        b"ColumnPaginationFilter" => {
            a.count(&[2])?;
            Leaf::ColumnPagination {
                limit: a.non_negative(0, "limit")?,
                offset: a.non_negative(1, "offset")?,
                count: 0,
            }
        }
        b"SingleColumnValueFilter" | b"SingleColumnValueExcludeFilter" => {
            a.count(&[4, 6])?;
            let (filter_if_missing, latest_version_only) = if a.args.len() == 6 {
                (a.boolean(4)?, a.boolean(5)?)
            } else {
                (false, true)
            };
            let (op, comparator) = a.op_and_comparator(2)?;
            Leaf::SingleColumnValue {
                family: a.bytes(0)?,
                qualifier: a.bytes(1)?,
                op,
                comparator,
                filter_if_missing,
                latest_version_only,
                exclude: name == b"SingleColumnValueExcludeFilter",
                found: false,
                matched: false,
            }
        }
        b"KeyOnlyFilter" => {
            a.count(&[0, 1])?;
            Leaf::KeyOnly(if a.args.is_empty() {
                false
            } else {
                a.boolean(0)?
            })
        }
        b"FirstKeyOnlyFilter" => {
            a.count(&[0])?;
            Leaf::FirstKeyOnly { seen: false }
        }
        b"PageFilter" => {
            a.count(&[1])?;
            Leaf::Page {
                size: a.non_negative(0, "page size")? as i64,
                accepted: 0,
            }
        }
        b"ValueFilter" | b"QualifierFilter" | b"FamilyFilter" | b"RowFilter" => {
            a.count(&[2])?;
            let (op, comparator) = a.op_and_comparator(0)?;
            match name {
                b"ValueFilter" => Leaf::Value(op, comparator),
                b"QualifierFilter" => Leaf::Qualifier(op, comparator),
                b"FamilyFilter" => Leaf::Family(op, comparator),
                _ => Leaf::Row {
                    op,
                    comparator,
                    out: false,
                },
            }
        }
        b"InclusiveStopFilter" => {
            a.count(&[1])?;
            Leaf::InclusiveStop {
                stop: a.bytes(0)?,
                done: false,
            }
        }
        b"TimestampsFilter" => {
            let mut list = (0..a.args.len())
                .map(|i| a.non_negative(i, "timestamp").map(|t| t as i64))
                .collect::<Result<Vec<_>>>()?;
            list.sort_unstable();
            list.dedup();
            Leaf::Timestamps(list)
        }
        _ => unreachable!("every modelled name is built above"),
    })
}

/// The arguments of one filter call, with typed accessors that explain a mismatch.
pub(super) struct Args<'a, 'p> {
    /// For error messages.
    pub(super) p: &'a Parser<'p>,
    /// The filter's name.
    pub(super) name: &'a str,
    /// Where the call starts.
    pub(super) at: usize,
    /// The arguments.
    pub(super) args: Vec<Arg>,
}

impl Args<'_, '_> {
    /// An error about argument `i`.
    pub(super) fn bad(&self, i: usize, why: &str) -> Error {
        self.p.error_at(
            self.args[i].at,
            &format!("argument {} of {}: {why}", i + 1, self.name),
        )
    }

    /// Requires one of the argument counts `allowed`.
    pub(super) fn count(&self, allowed: &[usize]) -> Result<()> {
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
    pub(super) fn bytes(&self, i: usize) -> Result<Vec<u8>> {
        match &self.args[i].kind {
            Tok::Quoted(b) => Ok(b.clone()),
            other => Err(self.bad(
                i,
                &format!("expected a quoted literal, found {}", other.describe()),
            )),
        }
    }

    /// Argument `i` as a bare word.
    pub(super) fn word(&self, i: usize, what: &str) -> Result<String> {
        match &self.args[i].kind {
            Tok::Word(w) => Ok(String::from_utf8_lossy(w).into_owned()),
            other => Err(self.bad(i, &format!("expected {what}, found {}", other.describe()))),
        }
    }

    /// Argument `i` as `true` or `false` (any case, as HBase accepts).
    pub(super) fn boolean(&self, i: usize) -> Result<bool> {
        let w = self.word(i, "true or false")?;
        match w.to_ascii_lowercase().as_str() {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(self.bad(i, &format!("expected true or false, found {w:?}"))),
        }
    }

    /// Argument `i` as an integer that is not negative.
    pub(super) fn non_negative(&self, i: usize, what: &str) -> Result<u64> {
        let w = self.word(i, &format!("a {what} (an integer)"))?;
        match w.parse::<i64>() {
            Ok(n) if n >= 0 => Ok(n as u64),
            Ok(n) => Err(self.bad(i, &format!("the {what} must not be negative, found {n}"))),
            Err(_) => Err(self.bad(i, &format!("expected a {what} (an integer), found {w:?}"))),
        }
    }

    /// Arguments `i` and `i + 1` as an operator and a `type:value` comparator.
    pub(super) fn op_and_comparator(&self, i: usize) -> Result<(Op, Comparator)> {
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
        let (kind, value) = (&text[..colon], text[colon + 1..].to_vec());
        let comparator = match kind {
            b"binary" => Comparator::Binary(value),
            b"binaryprefix" => Comparator::BinaryPrefix(value),
            b"regexstring" | b"substring" => {
                if !matches!(op, Op::Equal | Op::NotEqual) {
                    return Err(
                        self.bad(i, "regexstring and substring comparators only take = or !=")
                    );
                }
                if kind == b"substring" {
                    Comparator::Substring(value.to_ascii_lowercase())
                } else {
                    let pattern = String::from_utf8(value)
                        .map_err(|_| self.bad(j, "the regular expression is not UTF-8"))?;
                    let re = regex::RegexBuilder::new(&pattern)
                        .dot_matches_new_line(true)
                        .build()
                        .map_err(|e| self.bad(j, &format!("bad regular expression: {e}")))?;
                    Comparator::Regex(re)
                }
            }
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
        Ok((op, comparator))
    }
}
