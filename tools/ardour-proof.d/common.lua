-- Shared by midi.lua and lv2.lua (tools/ardour-proof): Ardour's own JACK backend on the server
-- named in JACK_DEFAULT_SERVER, a new session, and waiting on the shell's go-ahead file.
-- Every line the shell reads starts with "PROOF "; anything else is Ardour's own log.

function say(...)
  local parts = {}
  for _, v in ipairs({...}) do parts[#parts + 1] = tostring(v) end
  print("PROOF " .. table.concat(parts, " "))
  io.stdout:flush()
end

function fail(msg)
  say("ERROR", msg)
  pcall(close_session)
  os.exit(1)
end

function env(name)
  local v = os.getenv(name)
  if v == nil or v == "" then fail("environment variable " .. name .. " is not set") end
  return v
end

-- Ardour on JACK as client "ardour" (the second argument is the backend's instance name,
-- which the JACK backend takes as its client name), then a new session at 48 kHz.
-- Nothing is connected automatically (the master bus, new tracks' inputs and outputs): the
-- proofs connect what they need themselves. Ardour 7.3's auto-connect thread otherwise talks to
-- jackd while the Lua thread registers the new track's ports, and the two threads' requests and
-- replies on libjack's one socket (jackd 1.9.21) get crossed: "JackSocketClientChannel read
-- fail", "JACK HALTED" (rarer with this, not gone; tools/ardour-proof retries such a start).
function open_session(dir, name)
  local config = ARDOUR.config()
  config:set_auto_connect_standard_busses(false)
  config:set_input_auto_connect(ARDOUR.AutoConnectOption.ManualConnect)
  config:set_output_auto_connect(ARDOUR.AutoConnectOption.ManualConnect)
  local backend = AudioEngine:set_backend("JACK", "ardour", "")
  if backend == nil or backend:isnil() then fail("Ardour could not select its JACK backend") end
  local s = create_session(dir, name, 48000)
  if s == nil then fail("create_session failed (is the JACK server " .. tostring(os.getenv("JACK_DEFAULT_SERVER")) .. " running?)") end
  if not AudioEngine:running() then fail("the audio engine is not running after create_session") end
  say("ENGINE", AudioEngine:current_backend_name(), "rate", Session:nominal_sample_rate())
  return s
end

function sleep_ms(ms) ARDOUR.LuaAPI.usleep(ms * 1000) end

-- Arms every track given, then record-rolls; returns once Ardour is actively recording.
function record_roll(tracks)
  for _, t in ipairs(tracks) do
    t:rec_enable_control():set_value(1, PBD.GroupControlDisposition.NoGroup)
  end
  Session:maybe_enable_record(false)
  Session:request_roll(ARDOUR.TransportRequestSource.TRS_UI)
  for _ = 1, 200 do
    if Session:actively_recording() then return end
    sleep_ms(50)
  end
  fail("Ardour did not start recording within 10 s")
end

-- Waits until `path` exists (the shell's signal that the sender is done), at most `seconds`.
function wait_for_file(path, seconds)
  for _ = 1, seconds * 20 do
    local f = io.open(path, "r")
    if f then f:close() return true end
    sleep_ms(50)
  end
  return false
end

-- Stops the transport and waits until the capture is written and the regions exist.
function stop_recording()
  Session:request_stop(false, false, ARDOUR.TransportRequestSource.TRS_UI)
  for _ = 1, 200 do
    if not Session:transport_rolling() then break end
    sleep_ms(50)
  end
  if Session:transport_rolling() then fail("the transport did not stop") end
  sleep_ms(500)  -- the butler finishes the capture files and adds the regions
end

-- The regions of a track's playlist, as a Lua array.
function regions_of(track)
  local out = {}
  for r in track:playlist():region_list():iter() do out[#out + 1] = r end
  return out
end

-- Says the track's input port, records on it until the shell writes ARDOUR_PROOF_DONE (at most
-- ARDOUR_PROOF_WAIT seconds; `what` names what the shell plays, for the failure), then stops
-- and says Ardour's xruns while recording.
function record_until_done(track, what)
  say("INPUT", "ardour:" .. track:input():nth(0):name())
  record_roll({ track })
  local xruns_before = Session:get_xrun_count()
  say("RECORDING", "armed", track:rec_enable_control():get_value())
  if not wait_for_file(env("ARDOUR_PROOF_DONE"), tonumber(env("ARDOUR_PROOF_WAIT"))) then
    stop_recording()
    fail("the shell never said the " .. what .. " was over")
  end
  stop_recording()
  say("XRUNS", Session:get_xrun_count() - xruns_before)
end
