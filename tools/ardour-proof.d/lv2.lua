-- tools/ardour-proof, LV2: an audio track records what the shell plays into its JACK input;
-- then sensorwah.lv2 is loaded on that track through Ardour's plugin manager (LV2_PATH), its
-- controls set and read back, and the recorded region bounced through it (Ardour's own
-- offline processing of the track's chain up to its outputs).
--   env: ARDOUR_PROOF_SESSION, ARDOUR_PROOF_DONE, ARDOUR_PROOF_WAIT (as midi.lua),
--        ARDOUR_PROOF_URI (the plugin's URI), ARDOUR_PROOF_PEDAL (0-127)
-- prints: PROOF INPUT <port>, PROOF RECORDING, PROOF REGION <name> <start> <length> <path>,
-- PROOF PLUGIN <name> <uri>, PROOF PARAM <label> <value read back>, PROOF ADDED <processor>
-- <active>, PROOF BOUNCE <start> <length> <path>
local here = debug.getinfo(1, "S").source:sub(2):match("(.*/)") or "./"
dofile(here .. "common.lua")

local dir = env("ARDOUR_PROOF_SESSION")
local uri = env("ARDOUR_PROOF_URI")
local pedal = tonumber(env("ARDOUR_PROOF_PEDAL"))
open_session(dir, "sensorwah-lv2")

-- mono in, mono out: no panner between the plugin and the track's output
local tl = Session:new_audio_track(1, 1, nil, 1, "Guitar", ARDOUR.PresentationInfo.max_order,
  ARDOUR.TrackMode.Normal, false)
if tl:size() ~= 1 then fail("could not create the audio track") end
local track = tl:front()
record_until_done(track, "playback")
track:rec_enable_control():set_value(0, PBD.GroupControlDisposition.NoGroup)

local regions = regions_of(track)
if #regions ~= 1 then fail("expected one recorded region, found " .. #regions) end
local r = regions[1]
local src = r:source(0):to_filesource()
say("REGION", r:name(), r:start():samples(), r:length():samples(), src:isnil() and "-" or src:path())

-- the plugin, found by URI among the LV2 plugins Ardour scanned
local proc = ARDOUR.LuaAPI.new_plugin(Session, uri, ARDOUR.PluginType.LV2, "")
if proc:isnil() then fail("Ardour has no LV2 plugin " .. uri .. " (LV2_PATH=" .. tostring(os.getenv("LV2_PATH")) .. ")") end
local plugin = proc:to_insert():plugin(0)
say("PLUGIN", plugin:name(), plugin:unique_id())

-- its controls by label (the n-th control port, as LuaAPI.set_processor_param counts them)
local wanted = { ["Pedal"] = pedal, ["Voice"] = 0, ["What moves the pedal"] = 0, ["Dry/wet mix"] = 1, ["Bypass"] = 0 }
local found = {}
local n = 0
for j = 0, plugin:parameter_count() - 1 do
  if plugin:parameter_is_control(j) then
    local label = plugin:parameter_label(j)
    for key, value in pairs(wanted) do
      if plugin:parameter_is_input(j) and (label == key or label:sub(1, #key + 2) == key .. " (") then
        if not ARDOUR.LuaAPI.set_processor_param(proc, n, value) then fail("could not set " .. label) end
        found[key] = n
      end
    end
    n = n + 1
  end
end
for key, _ in pairs(wanted) do
  if found[key] == nil then fail("the plugin has no control labelled " .. key) end
end

if track:add_processor_by_index(proc, 0, nil, true) ~= 0 then fail("could not add the plugin to the track") end
proc:activate()
sleep_ms(300)
local keys = {}
for key, _ in pairs(wanted) do keys[#keys + 1] = key end
table.sort(keys)
for _, key in ipairs(keys) do
  local value, ok = ARDOUR.LuaAPI.get_processor_param(proc, found[key])
  say("PARAM", key:gsub(" ", "_"), value)
end
say("ADDED", proc:display_name():gsub(" ", "_"), proc:active() and "active" or "inactive")

-- Ardour's bounce: the region's range through the track's processors up to its outputs
local pos = r:position():samples()
local bounced = track:bounce_range(pos, pos + r:length():samples(), ARDOUR.InterThreadInfo(),
  track:main_outs(), false, "")
if bounced == nil or bounced:isnil() then fail("the bounce made no region") end
local bsrc = bounced:source(0):to_filesource()
say("BOUNCE", bounced:start():samples(), bounced:length():samples(), bsrc:isnil() and "-" or bsrc:path())

Session:save_state("", false, false, false, false, false)
close_session()
say("DONE")
quit()
