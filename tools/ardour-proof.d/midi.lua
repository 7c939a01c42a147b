-- tools/ardour-proof, MIDI: a MIDI track armed for recording, its input a JACK port that
-- `sensorwah replay --midi jack` connects to; record until the shell says the replay is over,
-- then read the recorded region's controller events back out of Ardour's model.
--   env: ARDOUR_PROOF_SESSION (folder to create), ARDOUR_PROOF_DONE (file the shell creates
--        when the sender has finished), ARDOUR_PROOF_WAIT (most seconds to wait for it),
--        ARDOUR_PROOF_EVENTS (file to write the events into)
-- prints: PROOF INPUT <port>, PROOF RECORDING, PROOF XRUNS <Ardour's xruns while recording>, PROOF REGION <name> <start> <length> <source
-- path>, PROOF MODEL-CC <count>; writes one line per controller event: "<sample> <channel 1-16>
-- <cc> <value>" (sample on Ardour's timeline, source-relative)
local here = debug.getinfo(1, "S").source:sub(2):match("(.*/)") or "./"
dofile(here .. "common.lua")

local dir = env("ARDOUR_PROOF_SESSION")
open_session(dir, "sensorwah-midi")

local tl = Session:new_midi_track(ARDOUR.ChanCount(ARDOUR.DataType("midi"), 1),
  ARDOUR.ChanCount(ARDOUR.DataType("midi"), 1), true, ARDOUR.PluginInfo(), nil, nil, 1,
  "SensorWah", ARDOUR.PresentationInfo.max_order, ARDOUR.TrackMode.Normal, false, false)
if tl:size() ~= 1 then fail("could not create the MIDI track") end
local track = tl:front()
record_until_done(track, "replay")

local regions = regions_of(track)
if #regions ~= 1 then fail("expected one recorded region, found " .. #regions) end
local r = regions[1]
local mr = r:to_midiregion()
if mr:isnil() then fail("the recorded region is not a MIDI region") end
local src = r:source(0):to_filesource()
say("REGION", r:name(), r:start():samples(), r:length():samples(), src:isnil() and "-" or src:path())

-- every controller Ardour's model holds for this region, on every channel
local events = {}
for ch = 0, 15 do
  for cc = 0, 127 do
    local ec = mr:control(Evoral.Parameter(ARDOUR.AutomationType.MidiCCAutomation, ch, cc), false)
    if not ec:isnil() then
      for ev in ec:list():events():iter() do
        events[#events + 1] = { ev.when:samples(), ch + 1, cc, math.floor(ev.value + 0.5), #events }
      end
    end
  end
end
-- by time; events at the same sample keep the order they had in their list
table.sort(events, function(a, b) if a[1] ~= b[1] then return a[1] < b[1] end return a[5] < b[5] end)
local f = assert(io.open(env("ARDOUR_PROOF_EVENTS"), "w"))
for _, e in ipairs(events) do f:write(string.format("%d %d %d %d\n", e[1], e[2], e[3], e[4])) end
f:close()
say("MODEL-CC", #events)

Session:save_state("", false, false, false, false, false)
close_session()
say("DONE")
quit()
