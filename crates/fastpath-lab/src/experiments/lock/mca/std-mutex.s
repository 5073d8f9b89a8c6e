# std::sync::Mutex<()> lock + unlock (futex mutex; the poison checks read the global panic
# count): the taken path of `std_pairs` in lock.rs, from
# `objdump -d -C target/release/fastpath --disassemble=fastpath_lab::experiments::lock::std_pairs`.
  mov    %rdi,0x10(%rsp)
  mov    0x10(%rsp),%rbx
  xor    %eax,%eax
  lock cmpxchg %ebp,(%rbx)
  jne    1f
1:
  mov    (%r12),%rax
  test   %r14,%rax
  jne    2f
2:
  lea    0x4(%rbx),%r13
  movzbl 0x4(%rbx),%eax
  test   %al,%al
  mov    (%r12),%rax
  test   %r14,%rax
  jne    3f
3:
  xor    %eax,%eax
  xchg   %eax,(%rbx)
  cmp    $0x2,%eax
  je     4f
4:
  dec    %rsi
