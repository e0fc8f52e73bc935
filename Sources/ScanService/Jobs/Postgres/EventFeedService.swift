import ServiceLifecycle

/// Runs an instance's notification listener, and catches every subscribed job up from the events
/// table once per heartbeat interval (so a lost notification costs at most one interval).
struct EventFeedService: Service {
    let feed: PostgresEventFeed
    let tick: Duration

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await feed.listen() }
                group.addTask {
                    while (try? await Task.sleep(for: tick)) != nil { await feed.catchUpAll() }
                }
                await group.waitForAll()
            }
        }
    }
}
