//! A Java exception to be thrown, described before it is an object: what
//! loading, linking, resolution and pre-decoding report, and what the
//! interpreter turns into a heap object of the named class when the
//! instruction that needs the failed step runs (JVMS 5.4.3: resolution
//! errors are thrown at the point of use).

use std::fmt;

/// A Java exception class (internal name) and its message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// The exception class, internal form (`java/lang/NoClassDefFoundError`).
    pub class: &'static str,
    /// Its detail message (`None`: null).
    pub message: Option<String>,
    /// Its cause (`Throwable.getCause`), if any.
    pub cause: Option<Box<Error>>,
}

impl Error {
    /// An exception of `class` with `message`.
    pub fn new(class: &'static str, message: impl Into<String>) -> Error {
        Error {
            class,
            message: Some(message.into()),
            cause: None,
        }
    }

    /// This error with `cause` as its cause.
    pub fn caused_by(mut self, cause: Error) -> Error {
        self.cause = Some(Box::new(cause));
        self
    }

    /// `NoClassDefFoundError`.
    pub fn no_class_def(name: &str) -> Error {
        Error::new("java/lang/NoClassDefFoundError", name.to_string())
    }

    /// `VerifyError`.
    pub fn verify(message: impl Into<String>) -> Error {
        Error::new("java/lang/VerifyError", message)
    }

    /// `IncompatibleClassChangeError`.
    pub fn incompatible(message: impl Into<String>) -> Error {
        Error::new("java/lang/IncompatibleClassChangeError", message)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.class.replace('/', "."))?;
        if let Some(m) = &self.message {
            write!(f, ": {m}")?;
        }
        Ok(())
    }
}

impl From<crate::classfile::ClassFileError> for Error {
    fn from(e: crate::classfile::ClassFileError) -> Error {
        Error::new(e.java_class(), e.to_string())
    }
}
