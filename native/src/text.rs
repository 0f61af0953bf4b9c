//! Text shared by both games' notations.

/// Python's `repr()` of a str, exact for ASCII text: the games' refusals quote what they were
/// given the way the Python references do.
pub fn py_repr(text: &str) -> String {
    let quote = if text.contains('\'') && !text.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(text.len() + 2);
    out.push(quote);
    for ch in text.chars() {
        match ch {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// What `viewer` (None: a spectator) may know of `action`, made by seat `mover`: all of it for
/// the mover, and for a kind (its first word) that the game declares `public`; of any other
/// kind only the kind and how many words followed it (default deny: a kind the game does not
/// declare public stays hidden). The games' `public_action` (docs/contract.md).
pub fn public_action(action: &str, mover: usize, viewer: Option<usize>, public: &[&str]) -> String {
    if viewer == Some(mover) {
        return action.to_string();
    }
    let mut words = action.split_whitespace();
    let Some(kind) = words.next() else {
        return String::new();
    };
    if public.contains(&kind) {
        return action.to_string();
    }
    match words.count() {
        0 => kind.to_string(),
        rest => format!("{kind} {rest}"),
    }
}

/// A viewer seat from Python (None: a spectator); ValueError outside the table's seats.
pub fn viewer_seat(viewer: Option<i64>, players: usize) -> Result<Option<usize>, String> {
    match viewer {
        None => Ok(None),
        Some(seat) if (0..players as i64).contains(&seat) => Ok(Some(seat as usize)),
        Some(_) => Err(format!("seat must be 0..{} or None", players - 1)),
    }
}

#[cfg(test)]
mod tests {
    use super::public_action;

    #[test]
    fn undeclared_kinds_show_only_their_size() {
        let public = ["tile"];
        assert_eq!(
            public_action("swap red blue", 0, Some(1), &public),
            "swap 2"
        );
        assert_eq!(
            public_action("swap red blue", 0, Some(0), &public),
            "swap red blue"
        );
        assert_eq!(
            public_action("tile red A1", 0, None, &public),
            "tile red A1"
        );
        assert_eq!(public_action("secret", 0, None, &public), "secret");
        assert_eq!(public_action("", 0, None, &public), "");
    }
}
