import ArgumentParser
import Foundation
import ScanClient
import Testing

@testable import bookscan

@Suite("tracking options, defined once")
struct TrackingOptionsTests {
    @Test("scan, batch and watch take the same tracking options, --adaptive and --no-analytics included")
    func sameOptions() throws {
        let shared = ["--adaptive", "--no-analytics", "--analytics-keep", "2", "--poll-interval", "500ms", "--strategy", "polling"]
        let batch = try BatchCommand.parse(["photos"] + shared)
        let scan = try ScanCommand.parse(["a.jpg"] + shared)
        let watch = try WatchCommand.parse([UUID().uuidString] + shared)
        for options in [batch.tracking, scan.tracking, watch.tracking] {
            let resolved = try options.resolve(with: ConfigFile())
            #expect(resolved.adaptive)
            #expect(resolved.analyticsDisabled)
            #expect(resolved.analyticsKeep == 2)
            #expect(resolved.pollInterval == .milliseconds(500))
            #expect(resolved.strategy == .polling)
        }
        let defaults = try TrackingOptions.parse([]).resolve(with: ConfigFile())
        #expect(!defaults.adaptive && !defaults.analyticsDisabled)
    }

    @Test("adaptive and analytics_keep come from the config file too; the command line wins")
    func fromConfig() throws {
        let config = try ConfigFile.parse("adaptive = true\nanalytics_keep = 7\n", path: "c.toml")
        let resolved = try TrackingOptions.parse([]).resolve(with: config)
        #expect(resolved.adaptive)
        #expect(resolved.analyticsKeep == 7)
        #expect(try TrackingOptions.parse(["--analytics-keep", "0"]).resolve(with: config).analyticsKeep == 0)
        #expect(throws: ConfigError.self) { try ConfigFile.parse("analytics_keep = -1\n", path: "c.toml") }
        #expect(throws: ConfigError.self) { try ConfigFile.parse("analytics_keep = 1.5\n", path: "c.toml") }
        #expect(throws: (any Error).self) { try TrackingOptions.parse(["--analytics-keep", "5000"]).resolve(with: ConfigFile()) }
    }
}
