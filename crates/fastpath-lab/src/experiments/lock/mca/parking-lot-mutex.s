# parking_lot::Mutex<()> lock + unlock (RawMutex::lock / unlock fast paths, inlined): the taken
# path of `mutex_pairs` in lock.rs, from
# `objdump -d -C target/release/fastpath --disassemble=fastpath_lab::experiments::lock::mutex_pairs`.
  mov    %rdi,0x8(%rsp)
  mov    0x8(%rsp),%rbx
  xor    %eax,%eax
  lock cmpxchg %r15b,(%rbx)
  jne    1f
1:
  mov    $0x1,%al
  lock cmpxchg %bpl,(%rbx)
  jne    2f
2:
  dec    %rsi
