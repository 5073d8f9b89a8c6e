//! The errors class-file parsing can report, as the JVM names them.
//!
//! Where it sits: every function of [`super`] returns these; the linker
//! turns them into the Java exceptions `ClassFormatError`,
//! `UnsupportedClassVersionError` and `VerifyError` (the verifier's), thrown
//! into the program that loaded the class.

use std::fmt;

/// Why a class file was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClassFileError {
    /// The bytes are not a well-formed class file (JVMS 4.8 format checking):
    /// `java.lang.ClassFormatError`.
    Format(String),
    /// The major/minor version is outside what this VM runs:
    /// `java.lang.UnsupportedClassVersionError`.
    UnsupportedVersion {
        /// The class file's major version.
        major: u16,
        /// The class file's minor version.
        minor: u16,
    },
}

impl ClassFileError {
    /// A format error with `msg`.
    pub fn format(msg: impl Into<String>) -> ClassFileError {
        ClassFileError::Format(msg.into())
    }

    /// The Java exception class this error is thrown as.
    pub fn java_class(&self) -> &'static str {
        match self {
            ClassFileError::Format(_) => "java/lang/ClassFormatError",
            ClassFileError::UnsupportedVersion { .. } => "java/lang/UnsupportedClassVersionError",
        }
    }
}

impl fmt::Display for ClassFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClassFileError::Format(m) => f.write_str(m),
            ClassFileError::UnsupportedVersion { major, minor } => write!(
                f,
                "class file version {major}.{minor} is not supported (this VM runs versions 45.0 to {}.0)",
                super::MAX_MAJOR_VERSION
            ),
        }
    }
}

impl std::error::Error for ClassFileError {}

/// Parsing's result type.
pub type Result<T> = std::result::Result<T, ClassFileError>;
