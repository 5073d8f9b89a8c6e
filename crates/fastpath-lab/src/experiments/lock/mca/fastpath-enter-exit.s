# fastpath sync::enter + sync::exit, uncontended, lock-stack empty: the taken path of
# `lock_pairs` (crates/fastpath-lab/src/experiments/lock.rs) in the release binary, from
# `objdump -d -C target/release/fastpath --disassemble=fastpath_lab::experiments::lock::lock_pairs`.
# Branches stay in (llvm-mca ignores their targets); %r15 = lock-stack (%fs:0 - 0x188),
# %r12 = header, %rsp slot = black_box.
  mov    %r14,(%rsp)
  mov    (%rsp),%r12
  mov    0x40(%r15),%rcx
  cmp    $0x7,%rcx
  ja     1f
  test   %rcx,%rcx
  je     1f
1:
  mov    (%r12),%rax
  mov    %eax,%edx
  and    $0x3,%edx
  cmp    $0x1,%edx
  jne    2f
  mov    %rax,%rdx
  and    $0xfffffffffffffffc,%rdx
  lock cmpxchg %rdx,(%r12)
  jne    2f
  mov    %r12,(%r15,%rcx,8)
  inc    %rcx
  mov    %rcx,0x40(%r15)
  lea    -0x1(%rcx),%rdx
  cmp    $0x7,%rdx
  ja     2f
  cmp    %r12,-0x8(%r15,%rcx,8)
  jne    2f
  test   %rdx,%rdx
  je     2f
2:
  mov    (%r12),%rax
  test   $0x3,%al
  jne    3f
  mov    %rax,%rcx
  or     $0x1,%rcx
  lock cmpxchg %rcx,(%r12)
  je     3f
3:
  mov    %rdx,0x40(%r15)
  dec    %rbx
