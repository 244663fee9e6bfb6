import Testing
@testable import AssetPackServer

/// The admission policy on its own: which connection makes room for a newcomer. Connections
/// here have no socket (descriptor -1), so closing one only changes the registry's books.
@Suite struct ConnectionRegistryTests {
    private func connection(_ n: Int) -> OpaquePointer { OpaquePointer(bitPattern: 0x1000 * n)! }

    @Test func pastThePerAddressLimitTheLongestWaitingOfThatAddressGoes() {
        let r = ConnectionRegistry(limits: .init(total: 100, perAddress: 2, requestTimeoutNanoseconds: 60_000_000_000))
        r.opened(connection(1), fd: -1, address: "10.0.0.1")
        r.opened(connection(2), fd: -1, address: "10.0.0.1")
        r.opened(connection(3), fd: -1, address: "10.0.0.2")
        r.answering(connection(1))  // busy: not a candidate
        r.opened(connection(4), fd: -1, address: "10.0.0.1")
        #expect(r.isClosing(connection(2)))
        #expect(!r.isClosing(connection(1)) && !r.isClosing(connection(3)) && !r.isClosing(connection(4)))
        // Every connection of the address busy: the newcomer itself is closed.
        r.answering(connection(4))
        r.opened(connection(5), fd: -1, address: "10.0.0.1")
        #expect(r.isClosing(connection(5)))
        #expect(r.openCount == 3 && r.evicted == 2)
        // Closed connections leave the books once libmicrohttpd reports them.
        r.closed(connection(2))
        r.closed(connection(5))
        #expect(r.trackedCount == 3 && r.openCount == 3)
    }

    @Test func nearTheGlobalLimitTheLongestWaitingOfAnyAddressGoes() {
        // 32 places, a reserve of 2: the 31st connection makes room.
        let r = ConnectionRegistry(limits: .init(total: 32, perAddress: 32, requestTimeoutNanoseconds: 60_000_000_000))
        for i in 1...30 { r.opened(connection(i), fd: -1, address: "10.0.0.\(i)") }
        r.answering(connection(1))
        r.opened(connection(31), fd: -1, address: "10.0.0.31")
        #expect(r.isClosing(connection(2)))
        #expect(r.openCount == 30)
        // A connection that finished a response waits again, from now: it is the newest waiter.
        r.waiting(connection(1))
        r.opened(connection(32), fd: -1, address: "10.0.0.32")
        #expect(r.isClosing(connection(3)) && !r.isClosing(connection(1)))
    }

    @Test func onlyWaitingConnectionsTimeOut() {
        let r = ConnectionRegistry(limits: .init(total: 100, perAddress: 100, requestTimeoutNanoseconds: 1))
        r.opened(connection(1), fd: -1, address: "10.0.0.1")
        r.opened(connection(2), fd: -1, address: "10.0.0.1")
        r.answering(connection(2))
        r.closeExpired()
        #expect(r.isClosing(connection(1)) && !r.isClosing(connection(2)))
        #expect(r.timedOut == 1)
    }
}
