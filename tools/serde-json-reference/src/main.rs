//! One payload per input line, `<mode> <hex of the payload bytes>`; one answer per output line, the hex of the JSON
//! the Rust S3 sink writes under "payload" (formatter.rs, payload_to_json_value), or `invalid`.
//!
//! mode `json`: a `schema = json` stream. The connectors runtime decodes with simd_json::to_owned_value (a failure is
//! a decode error: `invalid`); the sink turns the value back into bytes with simd_json::to_vec and reads them with
//! serde_json::from_slice (Null when that fails), then serde_json::to_vec writes it.
//! mode `raw`: a `schema = raw` stream. serde_json::from_slice of the bytes; `invalid` when they are not JSON (the
//! sink then writes them as a base64 string).
use std::io::{self, BufRead, BufWriter, Write};

fn main() {
    let stdin = io::stdin();
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    for line in stdin.lock().lines() {
        let line = line.expect("reading stdin");
        let (mode, hex) = line.split_once(' ').unwrap_or((line.as_str(), ""));
        let bytes = from_hex(hex);
        let answer = match mode {
            "json" => json(bytes),
            "raw" => raw(&bytes),
            other => panic!("unknown mode {other:?}: expected json or raw"),
        };
        match answer {
            Some(printed) => writeln!(out, "{}", to_hex(&printed)),
            None => writeln!(out, "invalid"),
        }
        .expect("writing stdout");
    }
    out.flush().expect("writing stdout");
}

fn json(mut bytes: Vec<u8>) -> Option<Vec<u8>> {
    let value = simd_json::to_owned_value(&mut bytes).ok()?;
    let again = simd_json::to_vec(&value).unwrap_or_default();
    let value: serde_json::Value = serde_json::from_slice(&again).unwrap_or(serde_json::Value::Null);
    Some(serde_json::to_vec(&value).expect("a Value always serialises"))
}

fn raw(bytes: &[u8]) -> Option<Vec<u8>> {
    let value: serde_json::Value = serde_json::from_slice(bytes).ok()?;
    Some(serde_json::to_vec(&value).expect("a Value always serialises"))
}

fn from_hex(hex: &str) -> Vec<u8> {
    assert!(hex.len() % 2 == 0, "odd hex length");
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex digit"))
        .collect()
}

fn to_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(DIGITS[(b >> 4) as usize] as char);
        s.push(DIGITS[(b & 15) as usize] as char);
    }
    s
}
