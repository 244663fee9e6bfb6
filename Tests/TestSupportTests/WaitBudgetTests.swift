import TestSupport
import Testing

@Suite struct WaitBudgetTests {
    let start = ContinuousClock.now

    @Test func pollsOnTimeSpendTheTimeout() {
        var budget = WaitBudget(timeout: .seconds(1), interval: .milliseconds(100), start: start)
        var polls = 0
        var now = start
        repeat {
            now += .milliseconds(100)
            polls += 1
        } while budget.remains(at: now)
        #expect(polls == 10)
    }

    @Test func aStallCountsAsOneInterval() {
        var budget = WaitBudget(timeout: .seconds(90), interval: .milliseconds(10), start: start)
        // The process was held for two minutes: more than the timeout on the clock, one poll counted.
        let afterTheStall = budget.remains(at: start + .seconds(120))
        let nextPoll = budget.remains(at: start + .seconds(120) + .milliseconds(10))
        #expect(afterTheStall && nextPoll)
        // Then polls on time spend the rest.
        var now = start + .seconds(120)
        while budget.remains(at: now + .milliseconds(10)) { now += .milliseconds(10) }
        #expect(now - start > .seconds(209) && now - start < .seconds(211))
    }

    @Test func fourTimesTheTimeoutOnTheClockEndsAnyWait() {
        var budget = WaitBudget(timeout: .seconds(10), interval: .milliseconds(10), start: start)
        var now = start
        var polls = 0
        // Every poll late: each counts as one interval, but the clock still ends the wait.
        repeat {
            now += .seconds(2)
            polls += 1
        } while budget.remains(at: now)
        #expect(polls == 20)
    }
}
