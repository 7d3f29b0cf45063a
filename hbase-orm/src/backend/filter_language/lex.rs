//! The tokenizer, and the wording of errors that point into the text.

use crate::model::{Error, Result};

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

/// An [`Error::IllegalArgument`] about argument `argument` (from 1) of the filter `filter`,
/// which starts at byte `at` of `text`.
pub(super) fn argument_error(
    text: &[u8],
    at: usize,
    argument: usize,
    filter: &str,
    why: &str,
) -> Error {
    malformed(text, at, &format!("argument {argument} of {filter}: {why}"))
}
