//! Screening of raw JSON-RPC messages before rmcp sees them.
//!
//! rmcp drops a line it cannot parse without a word (on purpose: it avoids
//! error storms between two confused peers). A client that sent `NaN`, a
//! 1000-digit number or JSON nested 200 deep would then wait forever. Both
//! transports run every incoming message through [`screen`] first: a message
//! that is not JSON, is too large or too deep is answered here with a
//! JSON-RPC error carrying the request's `id` when one can be read, and never
//! reaches the server.

use serde_json::{Value, json};

/// The largest message accepted (one stdio line, one HTTP body).
pub const MAX_MESSAGE_BYTES: usize = 4 << 20;

/// JSON-RPC's "parse error".
pub const PARSE_ERROR: i64 = -32700;
/// JSON-RPC's "invalid request" (used for oversized messages).
pub const INVALID_REQUEST: i64 = -32600;

/// `Ok(())` if `msg` is JSON rmcp can read; otherwise the error response to
/// send back.
pub fn screen(msg: &[u8]) -> Result<(), Value> {
    if msg.len() > MAX_MESSAGE_BYTES {
        return Err(error_response(
            scan_id(msg),
            INVALID_REQUEST,
            &format!(
                "message of {} bytes exceeds the limit of {MAX_MESSAGE_BYTES} bytes",
                msg.len()
            ),
        ));
    }
    match serde_json::from_slice::<Value>(msg) {
        Ok(_) => Ok(()),
        Err(e) => Err(error_response(
            scan_id(msg),
            PARSE_ERROR,
            &format!("parse error: {e}"),
        )),
    }
}

/// A JSON-RPC error response.
pub fn error_response(id: Option<Value>, code: i64, message: &str) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id.unwrap_or(Value::Null),
        "error": { "code": code, "message": message },
    })
}

/// The top-level `"id"` of a message that may not parse as a whole: a short
/// scan that tracks string and nesting state, and reads the value after the
/// key when it is a string or an integer (JSON-RPC's two id types).
pub fn scan_id(msg: &[u8]) -> Option<Value> {
    let mut depth = 0usize;
    let mut i = 0;
    while i < msg.len() {
        match msg[i] {
            b'"' => {
                let end = string_end(msg, i)?;
                if depth == 1 && &msg[i..end] == b"\"id\"" {
                    let mut j = end;
                    while j < msg.len() && msg[j].is_ascii_whitespace() {
                        j += 1;
                    }
                    if msg.get(j) == Some(&b':') {
                        return read_id_value(msg, j + 1);
                    }
                }
                i = end;
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    None
}

/// The index just past the string that starts at `start` (a `"`).
fn string_end(msg: &[u8], start: usize) -> Option<usize> {
    let mut i = start + 1;
    while i < msg.len() {
        match msg[i] {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

fn read_id_value(msg: &[u8], mut i: usize) -> Option<Value> {
    while i < msg.len() && msg[i].is_ascii_whitespace() {
        i += 1;
    }
    match msg.get(i)? {
        b'"' => {
            let end = string_end(msg, i)?;
            serde_json::from_slice::<String>(&msg[i..end])
                .ok()
                .map(Value::String)
        }
        b'-' | b'0'..=b'9' => {
            let end = msg[i + 1..]
                .iter()
                .position(|b| !b.is_ascii_digit())
                .map_or(msg.len(), |p| i + 1 + p);
            let text = std::str::from_utf8(&msg[i..end]).ok()?;
            text.parse::<i64>().ok().map(Value::from)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answered(msg: &str) -> Value {
        screen(msg.as_bytes()).expect_err(msg)
    }

    #[test]
    fn good_json_passes() {
        screen(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#).unwrap();
    }

    #[test]
    fn nan_infinity_huge_numbers_and_deep_nesting_get_an_error_with_the_id() {
        let deep = format!(
            r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"read_logs","arguments":{}1{}}}}}"#,
            "[".repeat(300),
            "]".repeat(300)
        );
        let huge = format!(
            r#"{{"jsonrpc":"2.0","id":"a\"b","method":"tools/call","params":{{"name":"read_logs","arguments":{{"count":{}}}}}}}"#,
            "9".repeat(1000)
        );
        for (msg, id) in [
            (
                r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"arguments":{"count":NaN}}}"#.to_string(),
                json!(3),
            ),
            (
                r#"{"params":{"id":99,"x":Infinity},"jsonrpc":"2.0","id":-4}"#.to_string(),
                json!(-4),
            ),
            (deep, json!(7)),
            (huge, json!("a\"b")),
            ("not json at all".to_string(), Value::Null),
        ] {
            let r = answered(&msg);
            assert_eq!(r["id"], id, "{r}");
            assert_eq!(r["error"]["code"], PARSE_ERROR, "{r}");
            assert_eq!(r["jsonrpc"], "2.0");
        }
    }

    #[test]
    fn an_oversized_message_is_refused_by_size() {
        let mut msg = br#"{"id":5,"x":""#.to_vec();
        msg.extend(std::iter::repeat_n(b'a', MAX_MESSAGE_BYTES));
        msg.extend(b"\"}");
        let r = screen(&msg).unwrap_err();
        assert_eq!(r["error"]["code"], INVALID_REQUEST);
        assert_eq!(r["id"], 5);
    }

    #[test]
    fn the_id_scan_ignores_nested_ids_and_strings() {
        assert_eq!(
            scan_id(br#"{"a":{"id":1},"b":"\"id\":2","id":3"#),
            Some(json!(3))
        );
        assert_eq!(scan_id(br#"{"a":{"id":1}}"#), None);
        assert_eq!(scan_id(br#"{"id":null}"#), None);
    }
}
