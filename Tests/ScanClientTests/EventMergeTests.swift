import Foundation
import ScanClient
import ScanProtocol
import Testing

/// The merge of every path's events into the one stream a user sees.
@Suite("EventMerge")
struct EventMergeTests {
    static let id = UUID()

    static func event(_ seq: Int, _ state: JobState, _ stage: ScanStage, _ fraction: Double) -> JobEvent {
        JobEvent(jobId: id, seq: seq, state: state, stage: stage, fraction: fraction, timestamp: Date(timeIntervalSince1970: 0))
    }

    @Test("out-of-order, repeated and older events fill the contiguity but only newer ones are news")
    func order() {
        var merge = EventMerge()
        #expect(merge.accept(Self.event(3, .running, .findingRows, 0.3)) == 0.3)
        #expect(merge.contiguous == 0)
        #expect(merge.accept(Self.event(1, .queued, .queued, 0)) == nil)
        #expect(merge.accept(Self.event(2, .running, .decoding, 0.1)) == nil)
        #expect(merge.contiguous == 3)
        #expect(merge.accept(Self.event(3, .running, .findingRows, 0.3)) == nil)
        #expect(merge.accept(Self.event(4, .succeeded, .done, 1)) == 1)
        #expect(merge.lastDelivered == 4)
    }

    @Test("an event with a higher seq but less progress (a hostile or confused server) is not news; a terminal one always is")
    func neverBackwards() {
        var merge = EventMerge()
        #expect(merge.accept(Self.event(1, .running, .segmentingSpines, 0.6)) == 0.6)
        #expect(merge.accept(Self.event(2, .running, .decoding, 0.7)) == nil)
        #expect(merge.accept(Self.event(3, .running, .segmentingSpines, 0.5)) == nil)
        #expect(merge.accept(Self.event(4, .queued, .queued, 0.9)) == nil)
        #expect(merge.contiguous == 4)
        #expect(merge.accept(Self.event(5, .failed, .decoding, 0)) == 0.6)
        #expect(merge.lastShown?.seq == 5)
    }

    @Test("a resubmitted job's merge goes on from what the first run showed: its early events are not news")
    func continuing() {
        let shown = Self.event(6, .running, .segmentingSpines, 0.62)
        var merge = EventMerge(continuing: shown)
        #expect(merge.contiguous == 6 && merge.lastDelivered == 6 && merge.displayFraction == 0.62)
        // The new job, numbered after 6 by the server, starts over from queued.
        #expect(merge.accept(Self.event(7, .queued, .queued, 0)) == nil)
        #expect(merge.accept(Self.event(8, .running, .decoding, 0.1)) == nil)
        #expect(merge.accept(Self.event(9, .running, .segmentingSpines, 0.5)) == nil)
        #expect(merge.accept(Self.event(10, .running, .segmentingSpines, 0.7)) == 0.7)
        #expect(merge.accept(Self.event(11, .succeeded, .done, 1)) == 1)
        #expect(merge.contiguous == 11)
        // Older than the continuation: never news.
        #expect(merge.accept(Self.event(3, .running, .findingRows, 0.3)) == nil)
    }
}
