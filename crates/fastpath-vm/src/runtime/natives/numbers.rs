//! Natives of the numbers: bit conversions, `Double.toString` and
//! `Float.toString` with OpenJDK's digits (JDK 19+: the shortest decimal
//! that rounds back, or two digits when one would do and two are closer,
//! Raffaello Giulietti's specification), parsing, `Math`'s transcendental
//! functions, and `Formatter`'s `%f`/`%e` digits (OpenJDK rounds the
//! shortest decimal half-up, not the exact binary value: `%.2f` of 1.005
//! is "1.01").

use fastpath::gc::BarrierSet;

use crate::interp::{Args, NativeFn};
use crate::runtime::{JResult, JThread};

/// Decimal digits and exponent of a finite non-zero value: `digits` without
/// a point, `exp` the power of ten of the first digit.
fn shortest(v: f64, is_float: bool) -> (Vec<u8>, i32) {
    let parse = |s: &str| -> (Vec<u8>, i32) {
        let (mant, exp) = s.split_once('e').expect("{:e} has an exponent");
        let digits: Vec<u8> = mant.bytes().filter(u8::is_ascii_digit).collect();
        (digits, exp.parse().expect("an exponent"))
    };
    let a = v.abs();
    let (digits, exp) = if is_float {
        parse(&format!("{:e}", a as f32))
    } else {
        parse(&format!("{a:e}"))
    };
    if digits.len() == 1 {
        // JDK 19+: when one digit suffices, the closest of one or two
        // digits (4.9E-324, not 5.0E-324).
        let two = if is_float {
            format!("{:.1e}", a as f32)
        } else {
            format!("{a:.1e}")
        };
        let back_ok = if is_float {
            two.parse::<f32>().ok() == Some(a as f32)
        } else {
            two.parse::<f64>().ok() == Some(a)
        };
        if back_ok {
            let (d2, e2) = parse(&two);
            if d2.len() == 2 && d2[1] != b'0' {
                return (d2, e2);
            }
        }
    }
    (digits, exp)
}

/// `Double.toString` / `Float.toString`.
pub fn java_to_string(v: f64, is_float: bool) -> String {
    if v.is_nan() {
        return "NaN".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    if v == 0.0 {
        return if v.is_sign_negative() { "-0.0" } else { "0.0" }.into();
    }
    let (digits, exp) = shortest(v, is_float);
    let mut s = String::new();
    if v < 0.0 {
        s.push('-');
    }
    let d: String = digits.iter().map(|&b| b as char).collect();
    if (-3..7).contains(&exp) {
        if exp >= 0 {
            let int_len = exp as usize + 1;
            if d.len() <= int_len {
                s.push_str(&d);
                s.push_str(&"0".repeat(int_len - d.len()));
                s.push_str(".0");
            } else {
                s.push_str(&d[..int_len]);
                s.push('.');
                s.push_str(&d[int_len..]);
            }
        } else {
            s.push_str("0.");
            s.push_str(&"0".repeat((-exp - 1) as usize));
            s.push_str(&d);
        }
    } else {
        s.push_str(&d[..1]);
        s.push('.');
        s.push_str(if d.len() > 1 { &d[1..] } else { "0" });
        s.push('E');
        s.push_str(&exp.to_string());
    }
    s
}

/// Rounds decimal `digits` (value `0.d1d2... × 10^(exp+1)`) half-up so
/// that `keep` digits remain (`keep` may be 0 or negative: then the result
/// is 0 or a carry to one digit). Returns the new digits and exponent.
fn round_half_up(mut digits: Vec<u8>, mut exp: i32, keep: i32) -> (Vec<u8>, i32) {
    if keep < 0 {
        return (vec![b'0'], exp);
    }
    let keep = keep as usize;
    if digits.len() <= keep {
        return (digits, exp);
    }
    let up = digits[keep] >= b'5';
    digits.truncate(keep);
    if up {
        let mut i = keep;
        loop {
            if i == 0 {
                digits.insert(0, b'1');
                exp += 1;
                break;
            }
            i -= 1;
            if digits[i] == b'9' {
                digits[i] = b'0';
            } else {
                digits[i] += 1;
                break;
            }
        }
    }
    if digits.is_empty() {
        digits.push(b'0');
    }
    (digits, exp)
}

/// `%.{prec}f` as `java.util.Formatter` prints it (no sign, grouping or
/// width: the Java side adds those).
pub fn format_fixed(v: f64, prec: usize) -> String {
    let a = v.abs();
    if a == 0.0 {
        return if prec == 0 {
            "0".into()
        } else {
            format!("0.{}", "0".repeat(prec))
        };
    }
    let (digits, exp) = shortest(a, false);
    // Digits kept: those before the point (exp + 1) plus `prec`.
    let keep = exp + 1 + prec as i32;
    let (digits, exp) = if keep < 0 {
        (vec![b'0'], 0)
    } else if keep == 0 {
        // Everything is below the last kept place: round on the first digit.
        if digits[0] >= b'5' {
            (vec![b'1'], exp + 1)
        } else {
            (vec![b'0'], 0)
        }
    } else {
        round_half_up(digits, exp, keep)
    };
    let d: String = digits.iter().map(|&b| b as char).collect();
    let all_zero = d.bytes().all(|b| b == b'0');
    let (int_part, frac_part) = if all_zero {
        ("0".to_string(), "0".repeat(prec))
    } else if exp >= 0 {
        let il = exp as usize + 1;
        let mut int_part = d.get(..il.min(d.len())).unwrap_or("").to_string();
        int_part.push_str(&"0".repeat(il.saturating_sub(d.len())));
        let mut frac = d.get(il..).unwrap_or("").to_string();
        frac.push_str(&"0".repeat(prec.saturating_sub(frac.len())));
        frac.truncate(prec);
        (int_part, frac)
    } else {
        let mut frac = "0".repeat((-exp - 1) as usize);
        frac.push_str(&d);
        frac.push_str(&"0".repeat(prec.saturating_sub(frac.len())));
        frac.truncate(prec);
        ("0".to_string(), frac)
    };
    if prec == 0 {
        int_part
    } else {
        format!("{int_part}.{frac_part}")
    }
}

/// `%.{prec}e` as `java.util.Formatter` prints it (`1.23e+04`).
pub fn format_sci(v: f64, prec: usize) -> String {
    let a = v.abs();
    if a == 0.0 {
        return format!("{}e+00", format_fixed(0.0, prec));
    }
    let (digits, exp) = shortest(a, false);
    let (digits, exp) = round_half_up(digits, exp, prec as i32 + 1);
    let mut d: String = digits.iter().map(|&b| b as char).collect();
    while d.len() < prec + 1 {
        d.push('0');
    }
    let mant = if prec == 0 {
        d[..1].to_string()
    } else {
        format!("{}.{}", &d[..1], &d[1..prec + 1])
    };
    format!("{mant}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs())
}

/// Java's `Double.parseDouble` grammar (decimal; the suffixes; NaN and
/// Infinity; surrounding whitespace): `None` for a malformed string.
pub fn parse_java_double(s: &str) -> Option<f64> {
    let t = s.trim_matches(|c: char| c <= ' ');
    let (neg, body) = match t.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let v = if body == "NaN" {
        f64::NAN
    } else if body == "Infinity" {
        f64::INFINITY
    } else {
        let body = body.strip_suffix(['f', 'F', 'd', 'D']).unwrap_or(body);
        let (mant, exp) = match body.find(['e', 'E']) {
            Some(i) => (&body[..i], Some(&body[i + 1..])),
            None => (body, None),
        };
        let ok_mant = {
            let (a, b) = mant.split_once('.').unwrap_or((mant, ""));
            (!a.is_empty() || !b.is_empty())
                && a.bytes().all(|c| c.is_ascii_digit())
                && b.bytes().all(|c| c.is_ascii_digit())
                && mant.matches('.').count() <= 1
        };
        let ok_exp = exp.is_none_or(|e| {
            let e = e.strip_prefix(['+', '-']).unwrap_or(e);
            !e.is_empty() && e.bytes().all(|c| c.is_ascii_digit())
        });
        if !ok_mant || !ok_exp {
            return None;
        }
        body.parse::<f64>().ok()?
    };
    Some(if neg { -v } else { v })
}

fn double_to_string<B: BarrierSet>(t: &mut JThread<B>, a: Args) -> JResult<u64> {
    Ok(t.new_string_from(&java_to_string(a.double(0), false))? as u64)
}

fn float_to_string<B: BarrierSet>(t: &mut JThread<B>, a: Args) -> JResult<u64> {
    Ok(t.new_string_from(&java_to_string(a.float(0) as f64, true))? as u64)
}

fn parse_double<B: BarrierSet>(t: &mut JThread<B>, a: Args) -> JResult<u64> {
    let s = a.obj(0);
    if s == 0 {
        return Err(t.throw_npe_plain());
    }
    let text = t.string_text(s);
    match parse_java_double(&text) {
        Some(v) => Ok(v.to_bits()),
        None => Err(t.throw_new(
            "java/lang/NumberFormatException",
            Some(&parse_error_message(&text)),
        )),
    }
}

/// `FloatingDecimal.readJavaFormatString`'s messages: "empty String",
/// "multiple points", else the input quoted.
pub fn parse_error_message(text: &str) -> String {
    let t = text.trim_matches(|c: char| c <= ' ');
    if t.is_empty() {
        "empty String".to_string()
    } else if t
        .split(['e', 'E'])
        .next()
        .is_some_and(|m| m.matches('.').count() > 1)
    {
        "multiple points".to_string()
    } else {
        format!("For input string: \"{text}\"")
    }
}

fn format_double<B: BarrierSet>(t: &mut JThread<B>, a: Args) -> JResult<u64> {
    let (v, prec, conv) = (a.double(0), a.int(2).max(0) as usize, a.int(3) as u8);
    let s = if conv == b'e' {
        format_sci(v, prec)
    } else {
        format_fixed(v, prec)
    };
    Ok(t.new_string_from(&s)? as u64)
}

macro_rules! math1 {
    ($f:expr) => {
        |_t, a| Ok(($f)(a.double(0)).to_bits())
    };
}
macro_rules! math2 {
    ($f:expr) => {
        |_t, a| Ok(($f)(a.double(0), a.double(2)).to_bits())
    };
}

/// The natives of this file.
pub fn lookup<B: BarrierSet>(class: &str, name: &str, desc: &str) -> Option<NativeFn<B>> {
    let math = class == "java/lang/Math" || class == "java/lang/StrictMath";
    Some(match (class, name, desc) {
        ("java/lang/Double", "doubleToRawLongBits", "(D)J") => |_t, a| Ok(a.slot(0)),
        ("java/lang/Double", "longBitsToDouble", "(J)D") => |_t, a| Ok(a.slot(0)),
        ("java/lang/Float", "floatToRawIntBits", "(F)I") => |_t, a| Ok(a.slot(0) as u32 as i32 as i64 as u64),
        ("java/lang/Float", "intBitsToFloat", "(I)F") => |_t, a| Ok(a.slot(0) as u32 as u64),
        ("java/lang/Double", "toString", "(D)Ljava/lang/String;") => double_to_string::<B>,
        ("java/lang/Float", "toString", "(F)Ljava/lang/String;") => float_to_string::<B>,
        ("java/lang/Double", "parseDouble", "(Ljava/lang/String;)D") => parse_double::<B>,
        ("java/util/Formatter", "formatDouble", "(DII)Ljava/lang/String;") => format_double::<B>,
        (_, "sin", "(D)D") if math => math1!(f64::sin),
        (_, "cos", "(D)D") if math => math1!(f64::cos),
        (_, "tan", "(D)D") if math => math1!(f64::tan),
        (_, "asin", "(D)D") if math => math1!(f64::asin),
        (_, "acos", "(D)D") if math => math1!(f64::acos),
        (_, "atan", "(D)D") if math => math1!(f64::atan),
        (_, "exp", "(D)D") if math => math1!(f64::exp),
        (_, "log", "(D)D") if math => math1!(f64::ln),
        (_, "log10", "(D)D") if math => math1!(f64::log10),
        (_, "sqrt", "(D)D") if math => math1!(f64::sqrt),
        (_, "cbrt", "(D)D") if math => math1!(f64::cbrt),
        (_, "sinh", "(D)D") if math => math1!(f64::sinh),
        (_, "cosh", "(D)D") if math => math1!(f64::cosh),
        (_, "tanh", "(D)D") if math => math1!(f64::tanh),
        (_, "expm1", "(D)D") if math => math1!(f64::exp_m1),
        (_, "log1p", "(D)D") if math => math1!(f64::ln_1p),
        (_, "pow", "(DD)D") if math => math2!(java_pow),
        (_, "atan2", "(DD)D") if math => math2!(f64::atan2),
        (_, "hypot", "(DD)D") if math => math2!(f64::hypot),
        (_, "IEEEremainder", "(DD)D") if math => math2!(ieee_remainder),
        (_, "fma", "(DDD)D") if math => |_t, a| Ok(a.double(0).mul_add(a.double(2), a.double(4)).to_bits()),
        (_, "scalb", "(DI)D") if math => |_t, a| Ok(scalb(a.double(0), a.int(2)).to_bits()),
        _ => return None,
    })
}

/// `Math.IEEEremainder`: `x - n·y` with `n` the integer nearest `x/y`
/// (ties to even), from the exact `fmod`.
fn ieee_remainder(x: f64, y: f64) -> f64 {
    if x.is_nan() || y.is_nan() || x.is_infinite() || y == 0.0 {
        return f64::NAN;
    }
    if y.is_infinite() {
        return x;
    }
    let r = x % y; // exact, sign of x
    let ay = y.abs();
    let ar = r.abs();
    // The quotient's parity: (x - r)/y is an exact integer here.
    let q_odd = (((x - r) / y).abs() % 2.0) == 1.0;
    let adjust = ar > ay / 2.0 || (ar == ay / 2.0 && q_odd);
    let out = if adjust { r - ay.copysign(r) } else { r };
    if out == 0.0 {
        0.0f64.copysign(x)
    } else {
        out
    }
}

/// `Math.scalb`: `d · 2^n`, rounded once when the result is subnormal.
fn scalb(d: f64, n: i32) -> f64 {
    let n = n.clamp(-2200, 2200);
    let mut v = d;
    let mut k = n;
    while k > 1000 {
        v *= 2f64.powi(1000);
        k -= 1000;
    }
    while k < -1000 {
        // Down in steps that stay normal until the last.
        v *= 2f64.powi(-1000);
        k += 1000;
    }
    v * 2f64.powi(k)
}

/// `Math.pow` with Java's special cases where C's `pow` differs (a NaN
/// exponent gives NaN even for base 1; `(-1)^±∞` is NaN).
fn java_pow(x: f64, y: f64) -> f64 {
    if y.is_nan() || (x.abs() == 1.0 && y.is_infinite()) {
        return f64::NAN;
    }
    x.powf(y)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn to_string_matches_openjdk() {
        for (v, s) in [
            (1.0 / 3.0, "0.3333333333333333"),
            (100.0, "100.0"),
            (1e21, "1.0E21"),
            (f64::MIN_POSITIVE * f64::EPSILON, "4.9E-324"),
            (1e-5, "1.0E-5"),
            (123456789.0, "1.23456789E8"),
            (1e7, "1.0E7"),
            (0.001, "0.001"),
            (f64::MAX, "1.7976931348623157E308"),
            (0.1 + 0.2, "0.30000000000000004"),
            (-0.0, "-0.0"),
        ] {
            assert_eq!(java_to_string(v, false), s);
        }
        assert_eq!(java_to_string(0.1f32 as f64, true), "0.1");
        assert_eq!(java_to_string(f32::MAX as f64, true), "3.4028235E38");
        assert_eq!(java_to_string((100f32 / 3.0) as f64, true), "33.333332");
        assert_eq!(java_to_string(9.999999E-4f32 as f64, true), "9.999999E-4");
    }

    #[test]
    fn fixed_and_scientific_round_the_shortest_digits_half_up() {
        assert_eq!(format_fixed(1.005, 2), "1.01");
        assert_eq!(format_fixed(0.25, 1), "0.3");
        assert_eq!(format_fixed(0.35, 1), "0.4");
        assert_eq!(format_fixed(std::f64::consts::PI, 6), "3.141593");
        assert_eq!(format_fixed(2.0005, 3), "2.001");
        assert_eq!(format_fixed(0.5, 0), "1");
        assert_eq!(format_fixed(2.5, 0), "3");
        assert_eq!(format_fixed(1.23456, 3), "1.235");
        assert_eq!(format_fixed(0.0004, 2), "0.00");
        assert_eq!(format_fixed(0.006, 2), "0.01");
        assert_eq!(format_fixed(99.996, 2), "100.00");
        assert_eq!(format_fixed(1234567.0, 1), "1234567.0");
        assert_eq!(format_sci(12345.678, 2), "1.23e+04");
        assert_eq!(format_sci(0.000123, 1), "1.2e-04");
    }

    #[test]
    fn parses_javas_grammar() {
        assert_eq!(parse_java_double(" 1.5e3d "), Some(1500.0));
        assert_eq!(parse_java_double("-Infinity"), Some(f64::NEG_INFINITY));
        assert_eq!(parse_java_double(".5"), Some(0.5));
        assert_eq!(parse_java_double("5."), Some(5.0));
        assert!(parse_java_double("NaN").unwrap().is_nan());
        for bad in ["", "x1", "1e", "--1", "1.2.3", "inf", "e5", "."] {
            assert_eq!(parse_java_double(bad), None, "{bad}");
        }
    }
}
