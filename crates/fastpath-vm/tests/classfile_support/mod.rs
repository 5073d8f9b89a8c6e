//! Test support for the class-file parser and the verifier: the corpus
//! compiled, a JDK image reader, a class path standing in for the linker,
//! a class-file assembler, and a map of where things are in a class file.
#![allow(dead_code)]

pub mod asm;
pub mod class_path;
pub mod corpus;
pub mod jimage;
pub mod layout;
