import Foundation

/// Runs a closure on a thread of its own and hands back its result. Not a pool thread: the
/// closures run here wait for other work (the selection for subtrees that pool threads walk,
/// the file table for the selection), which must not hold one of the pool's threads.
final class WorkerThread<Value>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var value: Value?

    init(stackSize: Int = 1 << 20, _ body: @escaping @Sendable () -> Value) {
        let thread = Thread { [self] in
            value = body()
            done.signal()
        }
        thread.stackSize = stackSize
        thread.start()
    }

    /// The closure's result, once it has returned (waiting for it).
    func result() -> Value {
        done.wait()
        return value!
    }
}
