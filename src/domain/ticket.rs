//! Issue-tracker tickets (spec §2 'Ticket dialog', §3 'Ticket'): the description the
//! console writes, with its mentions, and its two renderings in Jira. Pure functions.
//!
//! The console's description is plain text in which a mention is written
//! `@[Display Name](id)`: the id is a Jira Cloud accountId or a Jira Server/DC username.
//! A mention whose id (or name) is empty, `null` or `undefined` is not a mention: its
//! name stays as plain text `@Display Name`.
//!
//! - Jira Cloud (REST v3) takes the Atlassian Document Format: one paragraph per line,
//!   mentions as `mention` nodes by accountId ([`to_adf`], back with [`from_adf`]).
//! - Jira Server/DC (REST v2) takes wiki markup: a mention is `[~username]` ([`to_wiki`],
//!   back with [`from_wiki`]).

use serde_json::{json, Value};

/// The issue type of every ticket the console opens (spec §2).
pub const ISSUE_TYPE: &str = "Bug";

/// A piece of a description.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    Text(String),
    Mention { id: String, name: String },
}

fn real(v: &str) -> bool {
    let v = v.trim();
    !v.is_empty() && v != "null" && v != "undefined"
}

/// Splits a console description into text and mentions; broken mention markup stays text,
/// and a mention without a real id or name becomes the text `@name`.
pub fn parse(text: &str) -> Vec<Piece> {
    let mut out: Vec<Piece> = Vec::new();
    let push_text = |out: &mut Vec<Piece>, s: &str| {
        if s.is_empty() {
            return;
        }
        if let Some(Piece::Text(t)) = out.last_mut() {
            t.push_str(s);
        } else {
            out.push(Piece::Text(s.to_string()));
        }
    };
    let mut rest = text;
    while let Some(at) = rest.find("@[") {
        let after = &rest[at + 2..];
        let parsed = after.find("](").and_then(|close| {
            let name = &after[..close];
            let tail = &after[close + 2..];
            let end = tail.find(')')?;
            if name.contains('\n') || tail[..end].contains('\n') {
                return None;
            }
            Some((name, &tail[..end], &tail[end + 1..]))
        });
        match parsed {
            Some((name, id, next)) => {
                push_text(&mut out, &rest[..at]);
                if real(id) && real(name) {
                    out.push(Piece::Mention {
                        id: id.trim().to_string(),
                        name: name.trim().to_string(),
                    });
                } else if real(name) {
                    push_text(&mut out, &format!("@{}", name.trim()));
                }
                rest = next;
            }
            None => {
                push_text(&mut out, &rest[..at + 2]);
                rest = after;
            }
        }
    }
    push_text(&mut out, rest);
    out
}

/// The console's text of pieces (the inverse of [`parse`] for real mentions).
pub fn unparse(pieces: &[Piece]) -> String {
    pieces
        .iter()
        .map(|p| match p {
            Piece::Text(t) => t.clone(),
            Piece::Mention { id, name } => format!("@[{name}]({id})"),
        })
        .collect()
}

/// The ids of the description's mentions, in order, without repeats.
pub fn mentioned(text: &str) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    for p in parse(text) {
        if let Piece::Mention { id, .. } = p {
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
    }
    ids
}

/// The description as an ADF document (Jira Cloud): a paragraph per line, mentions as
/// `mention` nodes by accountId.
pub fn to_adf(text: &str) -> Value {
    let pieces = parse(text);
    let mut paragraphs: Vec<Vec<Value>> = vec![Vec::new()];
    for p in pieces {
        match p {
            Piece::Text(t) => {
                for (i, line) in t.split('\n').enumerate() {
                    if i > 0 {
                        paragraphs.push(Vec::new());
                    }
                    let line = line.trim_end_matches('\r');
                    if !line.is_empty() {
                        paragraphs
                            .last_mut()
                            .expect("one paragraph at least")
                            .push(json!({"type": "text", "text": line}));
                    }
                }
            }
            Piece::Mention { id, name } => paragraphs
                .last_mut()
                .expect("one paragraph at least")
                .push(json!({"type": "mention", "attrs": {"id": id, "text": format!("@{name}")}})),
        }
    }
    let content: Vec<Value> = paragraphs
        .into_iter()
        .map(|c| json!({"type": "paragraph", "content": c}))
        .collect();
    json!({"type": "doc", "version": 1, "content": content})
}

fn adf_inline(node: &Value, out: &mut String) {
    match node["type"].as_str() {
        Some("text") => out.push_str(node["text"].as_str().unwrap_or("")),
        Some("mention") => {
            let id = node["attrs"]["id"].as_str().unwrap_or("");
            let text = node["attrs"]["text"].as_str().unwrap_or("");
            let name = text.strip_prefix('@').unwrap_or(text);
            out.push_str(&unparse(&[Piece::Mention {
                id: id.into(),
                name: name.into(),
            }]));
        }
        Some("hardBreak") => out.push('\n'),
        _ => {
            if let Some(children) = node["content"].as_array() {
                adf_blocks(children, out);
            }
        }
    }
}

fn adf_blocks(nodes: &[Value], out: &mut String) {
    for node in nodes {
        let block = matches!(
            node["type"].as_str(),
            Some("paragraph" | "heading" | "codeBlock")
        );
        if block {
            if !out.is_empty() {
                out.push('\n');
            }
            for c in node["content"].as_array().map(Vec::as_slice).unwrap_or(&[]) {
                adf_inline(c, out);
            }
        } else {
            adf_inline(node, out);
        }
    }
}

/// The console's text of an ADF document (null or not a document: empty).
pub fn from_adf(doc: &Value) -> String {
    let mut out = String::new();
    if let Some(c) = doc["content"].as_array() {
        adf_blocks(c, &mut out);
    }
    out
}

/// Whether `v` is an ADF document as Jira Cloud accepts it: `type` doc, `version` 1,
/// block content whose inline nodes are text (non-empty), mention (with an id) or hardBreak.
pub fn is_adf(v: &Value) -> bool {
    fn inline_ok(n: &Value) -> bool {
        match n["type"].as_str() {
            Some("text") => n["text"].as_str().is_some_and(|t| !t.is_empty()),
            Some("mention") => n["attrs"]["id"].as_str().is_some_and(|t| !t.is_empty()),
            Some("hardBreak") => true,
            _ => false,
        }
    }
    v["type"] == "doc"
        && v["version"] == 1
        && v["content"].as_array().is_some_and(|blocks| {
            blocks.iter().all(|b| {
                b["type"] == "paragraph"
                    && (b.get("content").is_none()
                        || b["content"]
                            .as_array()
                            .is_some_and(|c| c.iter().all(inline_ok)))
            })
        })
}

/// The description in wiki markup (Jira Server/DC): mentions as `[~username]`.
pub fn to_wiki(text: &str) -> String {
    parse(text)
        .into_iter()
        .map(|p| match p {
            Piece::Text(t) => t,
            Piece::Mention { id, .. } => format!("[~{id}]"),
        })
        .collect()
}

/// The console's text of wiki markup: `[~username]` becomes a mention named by the username.
pub fn from_wiki(wiki: &str) -> String {
    from_wiki_named(wiki, &std::collections::BTreeMap::new())
}

/// The usernames `[~username]` mentions in wiki markup, each once, in order.
pub fn wiki_mentions(wiki: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut rest = wiki;
    while let Some(at) = rest.find("[~") {
        let after = &rest[at + 2..];
        match after.find(']') {
            Some(end) if end > 0 && !after[..end].contains(['\n', '[']) => {
                let user = after[..end].to_string();
                if !out.contains(&user) {
                    out.push(user);
                }
                rest = &after[end + 1..];
            }
            _ => rest = after,
        }
    }
    out
}

/// As [`from_wiki`], each mention named by its display name in `names` (username to name;
/// Server/DC's wiki markup keeps only the username) when known.
pub fn from_wiki_named(wiki: &str, names: &std::collections::BTreeMap<String, String>) -> String {
    let mut out = String::new();
    let mut rest = wiki;
    while let Some(at) = rest.find("[~") {
        let after = &rest[at + 2..];
        match after.find(']') {
            Some(end) if end > 0 && !after[..end].contains(['\n', '[']) => {
                out.push_str(&rest[..at]);
                let user = &after[..end];
                out.push_str(&unparse(&[Piece::Mention {
                    id: user.into(),
                    name: names.get(user).map(String::as_str).unwrap_or(user).into(),
                }]));
                rest = &after[end + 1..];
            }
            _ => {
                out.push_str(&rest[..at + 2]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// A ticket attachment must be a CSV file (spec §5: 'Please upload a CSV file').
pub fn is_csv_name(name: &str) -> bool {
    name.rsplit_once('.')
        .is_some_and(|(stem, ext)| !stem.is_empty() && ext.eq_ignore_ascii_case("csv"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_finds_mentions_and_keeps_text() {
        let p = parse("Hi @[Ann Lee](5b10ac), see @[Bob](bob)!");
        assert_eq!(
            p,
            vec![
                Piece::Text("Hi ".into()),
                Piece::Mention {
                    id: "5b10ac".into(),
                    name: "Ann Lee".into()
                },
                Piece::Text(", see ".into()),
                Piece::Mention {
                    id: "bob".into(),
                    name: "Bob".into()
                },
                Piece::Text("!".into()),
            ]
        );
        assert_eq!(unparse(&p), "Hi @[Ann Lee](5b10ac), see @[Bob](bob)!");
    }

    #[test]
    fn mentions_without_real_id_or_name_are_dropped() {
        assert_eq!(
            parse("a @[Ann](null) b @[Bo](undefined) c @[Cy]() d @[](x)"),
            vec![Piece::Text("a @Ann b @Bo c @Cy d ".into())]
        );
        assert_eq!(
            mentioned("@[A](1) @[B](null) @[A](1) @[C](3)"),
            vec!["1", "3"]
        );
    }

    #[test]
    fn broken_markup_is_text() {
        assert_eq!(
            parse("mail @[x and @[Ann](a"),
            vec![Piece::Text("mail @[x and @[Ann](a".into())]
        );
        assert_eq!(parse("@[A\nB](1)"), vec![Piece::Text("@[A\nB](1)".into())]);
    }

    #[test]
    fn adf_has_a_paragraph_per_line_and_mention_nodes() {
        let doc = to_adf("Line one @[Ann](acc-1)\n\nLine three");
        assert_eq!(
            doc,
            json!({"type": "doc", "version": 1, "content": [
                {"type": "paragraph", "content": [
                    {"type": "text", "text": "Line one "},
                    {"type": "mention", "attrs": {"id": "acc-1", "text": "@Ann"}}]},
                {"type": "paragraph", "content": []},
                {"type": "paragraph", "content": [{"type": "text", "text": "Line three"}]}]})
        );
        assert!(is_adf(&doc));
        assert_eq!(from_adf(&doc), "Line one @[Ann](acc-1)\n\nLine three");
        assert!(is_adf(&to_adf("")));
    }

    #[test]
    fn adf_check_refuses_plain_text_and_bad_nodes() {
        assert!(!is_adf(&json!("plain text")));
        assert!(!is_adf(
            &json!({"type": "doc", "version": 2, "content": []})
        ));
        assert!(!is_adf(&json!({"type": "doc", "version": 1, "content": [
            {"type": "paragraph", "content": [{"type": "text", "text": ""}]}]})));
        assert!(!is_adf(&json!({"type": "doc", "version": 1, "content": [
            {"type": "paragraph", "content": [{"type": "mention", "attrs": {}}]}]})));
    }

    #[test]
    fn from_adf_reads_hard_breaks_and_nested_blocks() {
        let doc = json!({"type": "doc", "version": 1, "content": [
            {"type": "paragraph", "content": [
                {"type": "text", "text": "a"}, {"type": "hardBreak"}, {"type": "text", "text": "b"}]},
            {"type": "bulletList", "content": [{"type": "listItem", "content": [
                {"type": "paragraph", "content": [{"type": "text", "text": "c"}]}]}]}]});
        assert_eq!(from_adf(&doc), "a\nb\nc");
        assert_eq!(from_adf(&Value::Null), "");
    }

    #[test]
    fn wiki_mentions_both_ways() {
        let wiki = to_wiki("Ping @[Ann Lee](alee) and @[X](null).");
        assert_eq!(wiki, "Ping [~alee] and @X.");
        assert_eq!(from_wiki(&wiki), "Ping @[alee](alee) and @X.");
        assert_eq!(wiki_mentions("[~a] [~b] [~a] [~]"), vec!["a", "b"]);
        let names = [("alee".to_string(), "Ann Lee".to_string())].into();
        assert_eq!(
            from_wiki_named(&wiki, &names),
            "Ping @[Ann Lee](alee) and @X."
        );
        assert_eq!(from_wiki("[~] [~a b\n] x"), "[~] [~a b\n] x");
    }

    #[test]
    fn csv_names() {
        assert!(is_csv_name("runs.csv"));
        assert!(is_csv_name("RUNS.CSV"));
        assert!(!is_csv_name("runs.txt"));
        assert!(!is_csv_name(".csv"));
        assert!(!is_csv_name("csv"));
    }
}
