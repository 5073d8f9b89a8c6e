# The baseline: `cas_pair` in lock.rs (load, CAS 01->00 Acquire, CAS 00->01 Release), from
# `objdump -d -C target/release/fastpath --disassemble=fastpath_lab::experiments::lock::cas_pair`.
  mov    %rdi,-0x8(%rsp)
  mov    -0x8(%rsp),%r9
  mov    (%r9),%rcx
  mov    %rcx,%rdx
  and    $0xfffffffffffffffc,%rdx
  mov    %rcx,%rax
  lock cmpxchg %rdx,(%r9)
  jne    1f
1:
  mov    %rdx,%rax
  lock cmpxchg %rcx,(%r9)
  dec    %rsi
