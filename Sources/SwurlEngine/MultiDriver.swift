import SwurlCurl
import SwurlCore

/// Runs many exchanges at once on one libcurl multi handle. Each exchange is a
/// `Exchange`, stepped hop by hop with the same `beginHop`/`endHop` code that
/// `Exchange.perform()` uses, so redirects, credential origin binding, retries, the TLS
/// policy (the `HandshakeVerifier` installed by each hop's `configure()`) and timeouts are the
/// one-shot rules; only the waiting differs (the multi handle instead of curl_easy_perform, a
/// per-exchange timer instead of a sleep before a retry).
package final class MultiDriver {
    /// At most this many exchanges run at once.
    package let parallel: Int
    private let multi: MultiHandle
    /// The shared cookies, DNS cache and connection cache every exchange joins, except those
    /// with `ownSharedState` (each then has a share of its own, for its hops).
    package let shared: SharedState

    /// One exchange in flight, with the caller's tag.
    private final class Slot<Tag> {
        let tag: Tag
        let session: Exchange
        var transfer: Transfer?
        /// When a retry may start (monotonic seconds), while waiting.
        var wakeAt: Double?
        init(tag: Tag, session: Exchange) {
            self.tag = tag
            self.session = session
        }
    }

    /// - Parameters:
    ///   - parallel: exchanges at once (at least 1); also the cap on connections per host.
    package init(parallel: Int) throws(SwurlError) {
        self.parallel = max(1, parallel)
        multi = try MultiHandle()
        try multi.limitConnections(perHost: self.parallel, total: self.parallel)
        shared = try SharedState(spareHandles: self.parallel)
    }

    /// How `run` ended.
    package enum Ending {
        /// Every exchange `next` gave was run.
        case completed
        /// `finished` asked to stop starting new exchanges; those running were finished.
        case stopped
        /// Ctrl-C: the running exchanges were abandoned (each reported as `.interrupted`).
        case interrupted
    }

    /// A source of exchanges that may have none ready yet: lines still to come on a pipe or a
    /// terminal. The driver goes on with the running exchanges meanwhile and asks again when
    /// `fd` has input, so a slow writer never holds up the lines already read.
    package struct Input {
        /// The descriptor the source reads from.
        package let fd: Int32
        /// After `next` returned nil: whether the source has ended (true) or has nothing ready yet.
        package let ended: () -> Bool

        package init(fd: Int32, ended: @escaping () -> Bool) {
            self.fd = fd
            self.ended = ended
        }
    }

    /// The outcome of an exchange prepared ahead (`prefetch`) and left when the run stopped
    /// taking new ones: nothing of it was sent.
    package static let notRun = SwurlError.output("not run: the batch stopped taking lines before this one")

    /// Runs exchanges until `next` returns nil and all have ended.
    /// - Parameters:
    ///   - next: the next exchange to start and its tag; nil when there are no more. Called
    ///     with false when a slot is free, so the source is read as it is needed, and with true
    ///     (`prefetch`) when all are busy: a nil then means only "none to prepare now".
    ///   - finished: each exchange's outcome as it ends (completion order); return false to
    ///     start no new exchanges (the running ones still finish).
    ///   - tick: called at least every 100 ms (for a progress display).
    ///   - input: when given, a nil from `next` ends the source only if `input.ended()` says
    ///     so; otherwise `next` is asked again once `input.fd` is readable. Default: nil (a
    ///     nil from `next` is the end).
    ///   - prefetch: while every slot is busy, take the next exchange from `next` and prepare
    ///     its first hop (request, options, configured handle) before waiting, so that it
    ///     starts the moment a slot frees instead of after its preparation (one at a time, the
    ///     server otherwise idles through it: 1000 small GETs take 15-20% less time). Nothing is
    ///     sent before it starts. A caller whose `finished` may return false, or whose `next`
    ///     may block, passes false: a prepared exchange left when the run stops is reported as
    ///     not run (`notRun`), and after Ctrl-C as `.interrupted`. Default: false.
    ///   - holding: whether `next`, asked while other exchanges run (its `othersRunning`), holds
    ///     its next one back until none does (preparing it may block, and nothing drives the
    ///     running ones meanwhile): nil from `next` then means neither the end nor input to
    ///     wait for.
    package func run<Tag>(next: (_ ahead: Bool, _ othersRunning: Bool) -> (Tag, Exchange)?,
                         finished: (Tag, Swift.Result<Exchange.Result, SwurlError>, Exchange) -> Bool,
                         tick: () -> Void = {}, input: Input? = nil, prefetch: Bool = false,
                         holding: () -> Bool = { false }) -> Ending {
        var slots: [ObjectIdentifier: Slot<Tag>] = [:]
        var byEasy: [ObjectIdentifier: Slot<Tag>] = [:]
        var waiting: [Slot<Tag>] = []
        var sourceDone = false
        var stopping = false

        func end(_ slot: Slot<Tag>, _ outcome: Swift.Result<Exchange.Result, SwurlError>) {
            slots.removeValue(forKey: ObjectIdentifier(slot))
            if !finished(slot.tag, outcome, slot.session) { stopping = true }
        }
        // The next exchange, its first hop prepared (`prefetch`), not started.
        var ready: Slot<Tag>?
        /// After a hop: the exchange ends, goes on to its next hop, or waits for a retry.
        func hopEnded(_ slot: Slot<Tag>, _ transfer: Transfer, _ outcome: Swift.Result<TransferResult, SwurlError>) {
            do {
                switch try slot.session.endHop(transfer, outcome) {
                case .finished(let result): end(slot, .success(result))
                case .next: startHop(slot)
                case .retry(let wait):
                    slot.wakeAt = Transfer.now() + wait
                    waiting.append(slot)
                }
            } catch {
                end(slot, .failure(error))
            }
        }
        func startHop(_ slot: Slot<Tag>) {
            do {
                let transfer: Transfer
                if let prepared = slot.transfer {
                    // Prepared while the slots were busy: its clocks start now.
                    slot.session.firstHopStarts()
                    prepared.starts()
                    transfer = prepared
                } else {
                    transfer = try slot.session.beginHop()
                }
                if transfer.isReplay {
                    // Served by the cache: no handle joins the multi handle.
                    slot.transfer = nil
                    let outcome: Swift.Result<TransferResult, SwurlError>
                    do { outcome = .success(try transfer.perform()) } catch { outcome = .failure(error) }
                    hopEnded(slot, transfer, outcome)
                    return
                }
                slot.transfer = transfer
                try multi.add(transfer.easy, handler: transfer, mayMultiplex: transfer.mayMultiplex)
                byEasy[ObjectIdentifier(transfer.easy)] = slot
            } catch {
                slot.transfer = nil
                end(slot, .failure(error))
            }
        }

        /// The next exchange from the source, joined to the shared state unless it asks for its
        /// own (`TransferOptions.ownSharedState`); nil when there is none
        /// now (`inputPending` or `sourceDone` then says why, unless it was asked `ahead`).
        var inputPending = false
        func take(ahead: Bool) -> Slot<Tag>? {
            guard let (tag, session) = next(ahead, !slots.isEmpty || ready != nil) else {
                if !ahead && !holding() {
                    if let input, !input.ended() { inputPending = true } else { sourceDone = true }
                }
                return nil
            }
            if !session.options.ownSharedState { session.share(with: shared) }
            return Slot(tag: tag, session: session)
        }

        while true {
            if Interrupt.requested {
                for slot in slots.values {
                    guard let t = slot.transfer else { continue }
                    multi.remove(t.easy)
                    // A hop that was running ends as a one-shot request's does at Ctrl-C or
                    // SIGTERM: recorded (its --har entry, "interrupted"), never retried. (A
                    // slot waiting for a retry ended its hop already.)
                    if slot.wakeAt == nil { _ = try? slot.session.endHop(t, .failure(.interrupted)) }
                }
                let left = Array(slots.values) + (ready.map { [$0] } ?? [])
                slots.removeAll()
                ready = nil
                for slot in left { _ = finished(slot.tag, .failure(.interrupted), slot.session) }
                return .interrupted
            }
            // Fill the free slots: the prepared exchange first, then from the source.
            inputPending = false
            if stopping, let left = ready {
                // Prepared, never started: not run, which its result says (it was "interrupted",
                // exit 130, with no signal).
                ready = nil
                _ = finished(left.tag, .failure(MultiDriver.notRun), left.session)
            }
            while !stopping && slots.count < parallel {
                if let slot = ready {
                    ready = nil
                    slots[ObjectIdentifier(slot)] = slot
                    startHop(slot)
                    continue
                }
                guard !sourceDone, let slot = take(ahead: false) else { break }
                slots[ObjectIdentifier(slot)] = slot
                startHop(slot)
            }
            if slots.isEmpty && !inputPending && ready == nil { return stopping ? .stopped : .completed }

            // Retries whose wait is over.
            let now = Transfer.now()
            var stillWaiting: [Slot<Tag>] = []
            for slot in waiting {
                if let at = slot.wakeAt, at <= now { slot.wakeAt = nil; startHop(slot) } else { stillWaiting.append(slot) }
            }
            waiting = stillWaiting

            let done: [(EasyHandle, CurlResult)]
            do { done = try multi.perform() } catch {
                for slot in Array(slots.values) {
                    if let t = slot.transfer { multi.remove(t.easy) }
                    end(slot, .failure(error))
                }
                // Every slot has ended: none may be restarted or reported again.
                waiting.removeAll()
                byEasy.removeAll()
                continue
            }
            for (easy, rc) in done {
                guard let slot = byEasy.removeValue(forKey: ObjectIdentifier(easy)), let transfer = slot.transfer else { continue }
                multi.remove(easy)
                slot.transfer = nil
                let outcome: Swift.Result<TransferResult, SwurlError>
                do { outcome = .success(try transfer.end(rc)) } catch { outcome = .failure(error) }
                hopEnded(slot, transfer, outcome)
            }
            tick()
            if done.isEmpty && prefetch && ready == nil && !stopping && !sourceDone && slots.count >= parallel,
               let slot = take(ahead: true) {
                // Prepared now, while the network works; a failure to prepare ends it at once.
                do {
                    // With the cache, the lookup waits for the start: a line still running may
                    // store the response this one would otherwise fetch again.
                    if slot.session.options.cache == nil { slot.transfer = try slot.session.beginHop() }
                    ready = slot
                } catch {
                    end(slot, .failure(error))
                }
            }
            if done.isEmpty {
                // A closure, not `\.wakeAt`: a key path into the generic Slot is built at run time on every call.
                let soonest = waiting.compactMap({ $0.wakeAt }).min().map { max(0, $0 - Transfer.now()) } ?? 0.1
                // Waiting for input too: its next line starts as soon as it is there.
                multi.poll(milliseconds: Int(min(0.1, soonest) * 1000), readable: inputPending ? input?.fd : nil)
            }
        }
    }
}
