import AssetPackFormat
import Foundation

/// A fixed set of equally sized buffers, reused for the whole run: memory stays at
/// `count × capacity` whatever the input size, and the allocator never sees churn.
/// `take()` blocks until a buffer is free.
final class BlockPool: @unchecked Sendable {
    private var free: [ByteBlock]
    private let available: DispatchSemaphore
    private let lock = NSLock()
    let capacity: Int

    init(count: Int, capacity: Int) {
        self.capacity = capacity
        free = (0..<count).map { _ in ByteBlock(capacity: capacity) }
        // Start at zero and signal up: libdispatch traps when a semaphore is released with a
        // value below its initial one, which an aborted run may leave.
        available = DispatchSemaphore(value: 0)
        for _ in 0..<count { available.signal() }
    }

    func take() -> ByteBlock {
        available.wait()
        let block = lock.withLock { free.removeLast() }
        block.count = 0
        return block
    }

    func give(_ block: ByteBlock) {
        lock.withLock { free.append(block) }
        available.signal()
    }
}
