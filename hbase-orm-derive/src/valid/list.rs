//! Names listed in one string literal, separated by commas (`parts = "created, id"`): each
//! with its place in the list and a span that points at it where the compiler can say where
//! it is. A nightly compiler can; on stable, `proc_macro::Literal::subspan` is not available
//! and the span is the whole literal's, which is why messages also name the place.

use proc_macro2::Span;

/// One name of a list.
pub struct Item {
    /// Its place in the list, from 1.
    pub place: usize,
    /// The name without the spaces around it; empty for the second of `"a,,b"`.
    pub name: String,
    /// The name's own span where the compiler gives one, else the literal's.
    pub span: Span,
}

impl Item {
    /// The item as the subject of a message, `what` naming the list's items:
    /// ``index part 2, `id`,``.
    pub fn subject(&self, what: &str) -> String {
        format!("{what} {}, `{}`,", self.place, self.name)
    }

    /// The error for an empty name, `what` naming the list's items.
    pub fn empty(&self, what: &str) -> darling::Error {
        darling::Error::custom(format!(
            "{what} {} is empty: the list is names separated by commas",
            self.place
        ))
        .with_span(&self.span)
    }
}

/// The names of `lit`, split at its commas.
pub fn items(lit: &syn::LitStr) -> Vec<Item> {
    let value = lit.value();
    // Only when the source text is the value between two quotes (no escapes, not a raw
    // string) does a byte of the value sit one byte after its place in the source.
    let plain = lit.token().to_string() == format!("\"{value}\"");
    let mut out = Vec::new();
    let mut start = 0;
    for (i, piece) in value.split(',').enumerate() {
        let name = piece.trim();
        let at = 1 + start + (piece.len() - piece.trim_start().len());
        let own = (plain && !name.is_empty())
            .then(|| lit.token().subspan(at..at + name.len()))
            .flatten();
        out.push(Item {
            place: i + 1,
            name: name.to_string(),
            span: own.unwrap_or_else(|| lit.span()),
        });
        start += piece.len() + 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_keep_their_place_and_lose_their_spaces() {
        let lit: syn::LitStr = syn::parse_quote!(" created ,id,, x");
        let got: Vec<(usize, String)> =
            items(&lit).into_iter().map(|i| (i.place, i.name)).collect();
        let want = [(1, "created"), (2, "id"), (3, ""), (4, "x")];
        assert_eq!(got, want.map(|(p, n)| (p, n.to_string())));
    }
}
