//! What verification can fail with, as the JVM throws it.
//!
//! Where it sits: every check of [`super`] returns these. The linker throws
//! a [`VerifyError::Verify`] as `java.lang.VerifyError`, a
//! [`VerifyError::Format`] as `java.lang.ClassFormatError` (the checks
//! HotSpot makes while verifying but reports as format errors: exception
//! table offsets, `StackMapTable` contents), and a [`VerifyError::Linkage`]
//! as the error the class hierarchy reported when the verifier had to load
//! a class (`NoClassDefFoundError` for a class that does not exist), exactly
//! as HotSpot lets the loading error of `SystemDictionary::resolve_or_fail`
//! propagate out of the verifier.

use std::fmt;

/// An error the class hierarchy reports when it cannot load a class the
/// verifier asked about: thrown as is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkageError {
    /// The Java exception class, internal form (`java/lang/NoClassDefFoundError`).
    pub java_class: String,
    /// Its message (HotSpot's is the class name in internal form).
    pub message: String,
}

impl LinkageError {
    /// `NoClassDefFoundError` for `class` (internal form), with HotSpot's message.
    pub fn no_class_def_found(class: &str) -> LinkageError {
        LinkageError {
            java_class: "java/lang/NoClassDefFoundError".to_string(),
            message: class.to_string(),
        }
    }
}

/// The method a check failed in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MethodName {
    /// The class, internal form.
    pub class: String,
    /// The method's name.
    pub name: String,
    /// The method's descriptor.
    pub descriptor: String,
}

/// A failed check: its message (HotSpot's wording) and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// The message, HotSpot's first line.
    pub message: String,
    /// What was found and what was wanted, when types disagree.
    pub reason: Option<String>,
    /// The offset of the instruction (or stack map frame) at fault.
    pub bci: Option<u32>,
    /// The mnemonic of the instruction at `bci`, if it is one.
    pub instruction: Option<&'static str>,
    /// The method, when the failure is inside one.
    pub method: Option<Box<MethodName>>,
}

impl Failure {
    fn new(message: String) -> Failure {
        Failure {
            message,
            reason: None,
            bci: None,
            instruction: None,
            method: None,
        }
    }
}

/// Why a class failed verification.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VerifyError {
    /// `java.lang.VerifyError`.
    Verify(Failure),
    /// `java.lang.ClassFormatError` raised by a check HotSpot makes while
    /// verifying.
    Format(Failure),
    /// The hierarchy could not load a class the verifier needed.
    Linkage(LinkageError),
}

impl VerifyError {
    /// A `VerifyError` with `message` and no location yet.
    pub fn verify(message: impl Into<String>) -> VerifyError {
        VerifyError::Verify(Failure::new(message.into()))
    }

    /// A `ClassFormatError` with `message` and no location yet.
    pub fn format(message: impl Into<String>) -> VerifyError {
        VerifyError::Format(Failure::new(message.into()))
    }

    /// This error with `reason` (what was found against what was wanted),
    /// unless it has one.
    pub fn with_reason(mut self, reason: impl FnOnce() -> String) -> VerifyError {
        if let VerifyError::Verify(f) | VerifyError::Format(f) = &mut self {
            if f.reason.is_none() {
                f.reason = Some(reason());
            }
        }
        self
    }

    /// This error at offset `bci`, unless it has one.
    pub fn at_bci(mut self, bci: u32) -> VerifyError {
        if let VerifyError::Verify(f) | VerifyError::Format(f) = &mut self {
            f.bci.get_or_insert(bci);
        }
        self
    }

    /// This error in `method`, unless it has one; `code` names the
    /// instruction at its offset.
    pub fn in_method(mut self, method: impl FnOnce() -> MethodName, code: &[u8]) -> VerifyError {
        if let VerifyError::Verify(f) | VerifyError::Format(f) = &mut self {
            if f.method.is_none() {
                f.method = Some(Box::new(method()));
                f.instruction = f
                    .bci
                    .and_then(|b| code.get(b as usize))
                    .map(|&op| super::mnemonic::mnemonic(op));
            }
        }
        self
    }

    /// The Java exception class this error is thrown as (internal form).
    pub fn java_class(&self) -> &str {
        match self {
            VerifyError::Verify(_) => "java/lang/VerifyError",
            VerifyError::Format(_) => "java/lang/ClassFormatError",
            VerifyError::Linkage(l) => &l.java_class,
        }
    }

    /// The first line of the message (HotSpot's wording, without details).
    pub fn message(&self) -> &str {
        match self {
            VerifyError::Verify(f) | VerifyError::Format(f) => &f.message,
            VerifyError::Linkage(l) => &l.message,
        }
    }

    /// The offset of the failed check, if any.
    pub fn bci(&self) -> Option<u32> {
        match self {
            VerifyError::Verify(f) | VerifyError::Format(f) => f.bci,
            VerifyError::Linkage(_) => None,
        }
    }

    /// The method of the failed check, if any.
    pub fn method(&self) -> Option<&MethodName> {
        match self {
            VerifyError::Verify(f) | VerifyError::Format(f) => f.method.as_deref(),
            VerifyError::Linkage(_) => None,
        }
    }
}

impl From<LinkageError> for VerifyError {
    fn from(e: LinkageError) -> VerifyError {
        VerifyError::Linkage(e)
    }
}

impl fmt::Display for VerifyError {
    /// The exception message as HotSpot words it: the reason, then (for a
    /// `VerifyError`) an "Exception Details" block with the location.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VerifyError::Verify(failure) => {
                f.write_str(&failure.message)?;
                if let Some(m) = &failure.method {
                    write!(
                        f,
                        "\nException Details:\n  Location:\n    {}.{}{}",
                        m.class, m.name, m.descriptor
                    )?;
                    if let Some(bci) = failure.bci {
                        write!(f, " @{bci}")?;
                        if let Some(i) = failure.instruction {
                            write!(f, ": {i}")?;
                        }
                    }
                    if let Some(reason) = &failure.reason {
                        write!(f, "\n  Reason:\n    {reason}")?;
                    }
                }
                Ok(())
            }
            VerifyError::Format(failure) => {
                f.write_str(&failure.message)?;
                if let Some(m) = &failure.method {
                    write!(f, " in method '{}.{}{}'", m.class, m.name, m.descriptor)?;
                }
                Ok(())
            }
            VerifyError::Linkage(l) => f.write_str(&l.message),
        }
    }
}

impl std::error::Error for VerifyError {}
